// Starts and stops the servers under test as real child processes, and times how long they take to answer.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { peakRssBytes } from './proc-stats.mjs';

/** A TCP port nobody listens on right now, on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One GET without keep-alive; resolves with the status code, or 0 when nothing answers. */
export function probe(url, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** The environment of a child: ours without any setting of the service, plus `overrides`. */
export function childEnv(overrides) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'DATABASE_URL' || name === 'REDIS_URL' || name.startsWith('PETSTORE_') || name.startsWith('NODE_OPTIONS')) delete env[name];
  }
  for (const [name, value] of Object.entries(overrides)) if (value !== undefined) env[name] = String(value);
  return env;
}

/**
 * Spawns `node <args>` and waits until it is ready: until `healthUrl` answers 200 (polled every 20 ms), or until
 * it prints a line containing `readyLine`. Output goes to `logFile`. Resolves with the running process, whose
 * `startMs` is the time from spawn to ready.
 */
/** Thrown when a server under test is gone in the middle of a scenario. */
export class ServerExited extends Error {
  constructor(server) {
    super(`${server.name} exited unexpectedly (${server.exitCode ?? 'gone'}); its log: ${server.logFile}`);
    this.name = 'ServerExited';
  }
}

export async function startProcess({ name, args, env, cwd, healthUrl, readyLine, logFile, timeoutMs = 60_000 }) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exitCode;
  let stopRequested = false;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? signal;
      if (!stopRequested && readyAt) process.stderr.write(`[bench] ${name} exited by itself (${code ?? signal}) ${((Date.now() - readyAt) / 1000).toFixed(1)} s after it was ready\n`);
      resolve(exitCode);
    }),
  );
  let readyAt;

  const ready = readyLine
    ? new Promise((resolve) => {
        let seen = '';
        child.stdout.on('data', (chunk) => {
          seen += chunk;
          if (seen.includes(readyLine)) resolve(true);
        });
      })
    : (async () => {
        while (exitCode === undefined) {
          if ((await probe(healthUrl, 500)) === 200) return true;
          await new Promise((r) => setTimeout(r, 20));
        }
        return false;
      })();
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
  const outcome = await Promise.race([ready, exited.then(() => false), timeout]);
  const startMs = performance.now() - startedAt;
  if (outcome !== true) {
    child.kill('SIGKILL');
    await exited;
    const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-25).join('\n');
    throw new Error(`${name} did not become ready (${outcome === 'timeout' ? 'timed out' : `exited with ${exitCode}`}):\n${tail}`);
  }

  readyAt = Date.now();
  let stopping;
  return {
    name,
    pid: child.pid,
    startMs,
    logFile,
    get exited() {
      return exitCode !== undefined;
    },
    get exitCode() {
      return exitCode;
    },
    /** Peak RSS so far (VmHWM), in bytes. */
    peakRss: () => (exitCode === undefined ? peakRssBytes(child.pid) : undefined),
    /** SIGTERM, then SIGKILL after `graceMs`; resolves with the wall-clock time (Date.now) the process exited. */
    stop(graceMs = 20_000) {
      stopRequested = true;
      stopping ??= (async () => {
        if (exitCode === undefined) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          await exited;
          clearTimeout(timer);
        }
        const at = Date.now();
        await new Promise((resolve) => log.end(resolve));
        return at;
      })();
      return stopping;
    },
  };
}
