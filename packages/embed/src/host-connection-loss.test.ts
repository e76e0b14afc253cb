import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseUrl, killAtExit, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

// The built package in a host process of its own (`npm run test:slow` builds first): a crash ends the host, not vitest.
const script = fileURLToPath(new URL('./testing/outage-host.mjs', import.meta.url));
const KEY = 'host-connection-loss-key-0123456789';
const OUTAGES = 10;
// Served before each outage; then the outage (no connection can be made) for at least DOWN_MS and until a 503 has
// been answered; then the database is back. Waits are bounded by WITHIN_MS: room for a loaded machine, not a measure.
const UP_MS = 150;
const DOWN_MS = 250;
const WITHIN_MS = 10_000;
const WORKERS = 8;

/**
 * A TCP proxy in front of PostgreSQL, as a pooler or a network is: it can drop every connection through it at once
 * (the host's `pg` reads "Connection terminated unexpectedly") and refuse new ones while the database is "down".
 */
async function faultProxy(target: URL) {
  const open = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const end = () => {
      for (const socket of [client, upstream]) {
        socket.destroy();
        open.delete(socket);
      }
    };
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', end).on('close', end);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    refuse: (on: boolean) => {
      refusing = on;
    },
    drop: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

/** Starts the host; resolves with its port once it listens, or rejects with its stderr when it exits first. */
function startHost(url: string, given: 'pool' | 'db') {
  const child: ChildProcess = spawn(process.execPath, [script, url, given, KEY], { stdio: ['ignore', 'pipe', 'pipe'] });
  killAtExit(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const listening = /listening (\d+)/.exec(chunk.toString());
      if (listening) resolve(Number(listening[1]));
    });
    child.once('exit', (code, signal) => reject(new Error(`the host exited (${code ?? signal}) before listening: ${stderr}`)));
  });
  return { child, port, stderr: () => stderr };
}

interface Answer {
  outage: number;
  /** Where the outage stood when the request was sent and when its answer came. */
  sent: Stage;
  answered: Stage;
  status: number;
  code?: string;
  retryAfter?: string | null;
  at: number;
}
type Stage = 'up' | 'down' | 'back';

describe.skipIf(!databaseUrl).concurrent("a host's process when PostgreSQL loses the store's connections under load", () => {
  it.each([
    ['pool', "its own pg Pool, with only the pool's own error listener"],
    ['db', 'its own Kysely, with the client listener the docs ask for'],
  ] as const)(`lives through ${OUTAGES} outages on %s (%s), answering 503 unavailable in each and 2xx after`, { timeout: 60_000 }, async (given, _how) => {
    const scratch = await scratchPostgres();
    const proxy = await faultProxy(new URL(scratch.url));
    const throughProxy = new URL(scratch.url);
    throughProxy.host = `127.0.0.1:${proxy.port}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    admin.on('error', () => {});
    await admin.connect();
    const host = startHost(throughProxy.toString(), given);
    const answers: Answer[] = [];
    let outage = 0;
    let stage: Stage = 'up';
    let stopped = false;
    try {
      const base = `http://127.0.0.1:${await host.port}/v1/pets`;
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
      // Lists and creates, back to back on every worker, until the last outage is over.
      const worker = async (n: number) => {
        for (let i = n; !stopped; i++) {
          const sent = stage;
          const at = outage;
          const request = i % 2 ? fetch(`${base}?limit=5`, { headers }) : fetch(base, { method: 'POST', headers, body });
          const answer = await request.catch(() => undefined);
          const error = answer ? ((await answer.json().catch(() => ({}))) as { code?: string }) : {};
          answers.push({
            outage: at,
            sent,
            answered: outage === at ? stage : 'back',
            status: answer?.status ?? 0,
            code: error.code,
            retryAfter: answer?.headers.get('retry-after'),
            at: performance.now(),
          });
          if (!answer) await sleep(10);
        }
      };
      const workers = Array.from({ length: WORKERS }, (_, n) => worker(n));
      const served = (n: number) => answers.find((a) => a.outage === n && a.sent === 'back' && a.status >= 200 && a.status < 300);
      const refused = (n: number) => answers.some((a) => a.outage === n && a.answered === 'down' && a.status === 503);
      const alive = () => host.child.exitCode === null;
      const backAfter: number[] = [];
      const killed: number[] = [];
      for (outage = 0; outage < OUTAGES && alive(); outage++) {
        stage = 'up';
        await sleep(UP_MS);
        stage = 'down';
        proxy.refuse(true);
        if (outage % 2 === 0) {
          // The server ends the store's backends (57P01), as `pg_terminate_backend` or a restart does.
          const { rows } = await admin.query<{ n: string }>(
            'select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [new URL(scratch.url).pathname.slice(1)],
          );
          killed.push(Number(rows[0]!.n));
        } else {
          // The network or a proxy drops every connection: no message from the server, the socket just ends.
          proxy.drop();
        }
        const downAt = performance.now();
        await sleep(DOWN_MS);
        while (!refused(outage) && performance.now() - downAt < WITHIN_MS && alive()) await sleep(10);
        stage = 'back';
        proxy.refuse(false);
        const backAt = performance.now();
        while (!served(outage) && performance.now() - backAt < WITHIN_MS && alive()) await sleep(10);
        const first = served(outage);
        backAfter.push(first ? Math.round(first.at - backAt) : Number.POSITIVE_INFINITY);
      }
      stopped = true;
      await Promise.all(workers);

      const crashed = host.child.exitCode !== null || host.child.signalCode !== null;
      expect(crashed ? `the host exited (${host.child.exitCode ?? host.child.signalCode}): ${host.stderr()}` : 'alive').toBe('alive');
      const episodes = Array.from({ length: OUTAGES }, (_, n) => ({
        unavailableWhileDown: refused(n),
        servedAfter: backAfter[n]! < WITHIN_MS,
      }));
      expect(episodes).toEqual(Array.from({ length: OUTAGES }, () => ({ unavailableWhileDown: true, servedAfter: true })));
      // Every answer is a success or the outage's 503: no 500, no connection the host dropped.
      const outageAnswer = (a: Answer) => a.status === 503 && a.code === 'unavailable' && a.retryAfter === '1';
      const other = answers.filter((a) => !(a.status === 200 || a.status === 201 || outageAnswer(a)));
      expect(other).toEqual([]);
      for (const n of killed) expect(n).toBeGreaterThan(0);
      const count = (status: number) => answers.filter((a) => a.status === status).length;
      console.log(
        `${given}: ${OUTAGES} outages survived, ${count(200) + count(201)} answers 2xx and ${count(503)} 503 unavailable; ` +
          `${killed.reduce((a, b) => a + b, 0)} backends terminated; 2xx again at most ${Math.max(...backAfter)} ms after an outage`,
      );
    } finally {
      stopped = true;
      if (host.child.exitCode === null && host.child.signalCode === null) {
        host.child.kill('SIGKILL');
        await once(host.child, 'exit');
      }
      await admin.end().catch(() => {});
      await proxy.close();
      await scratch.drop();
    }
  });
});
