import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { freePort, killAtExit } from '@petstore/testing';
import { recipe } from './doc-recipes.js';

/** Whether HAProxy is installed (`.ci/install-haproxy.sh`). */
export const haproxyInstalled = (() => {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** An answer as `send` reads it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request through the balancer (HTTPS, as the documented recipe serves it, with a certificate of the test's
 * own), from a chosen loopback address (so the balancer forwards that address).
 * @example const { status } = await send(port, '/healthz')
 */
export function send(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        rejectUnauthorized: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject).end(options.body);
  });
}

/**
 * Writes `text` as it is over TLS to the balancer (a request no HTTP client would send) and resolves with the status,
 * the headers (lower-cased names) and the body of the answer, once the balancer closes the connection.
 * @example const { status } = await sendRaw(port, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')
 */
export function sendRaw(port: number, text: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'api.example.com' }, () => socket.write(text));
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = answer.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/**
 * A self-signed certificate and its key for `api.example.com`, in `dir`, made with openssl (cert.pem, key.pem, and
 * both in one file, bundle.pem, as HAProxy takes them).
 * @example const { bundle } = makeCertificate(dir)
 */
export function makeCertificate(dir: string) {
  const [cert, key, bundle] = ['cert.pem', 'key.pem', 'bundle.pem'].map((name) => join(dir, name)) as [string, string, string];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=api.example.com'], {
    stdio: 'ignore',
  });
  writeFileSync(bundle, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'));
  return { cert, key, bundle };
}

/** The documented servers (docs/deploying.md), in the order of the recipe. */
const DOCUMENTED_SERVERS = ['10.0.0.11:3000', '10.0.0.12:3000', '10.0.0.13:3000'];

/**
 * docs/deploying.md's haproxy.cfg and its errorfile, as printed there, with only the listening address, the
 * instances' addresses and the files' paths replaced.
 * @example await writeHaproxyRecipe(dir, port, ['127.0.0.1:4001', '127.0.0.1:4002', '127.0.0.1:4003'])
 */
export async function writeHaproxyRecipe(dir: string, port: number, servers: readonly string[]): Promise<string> {
  if (servers.length !== DOCUMENTED_SERVERS.length) throw new Error(`the recipe balances over ${DOCUMENTED_SERVERS.length} instances`);
  const { bundle } = makeCertificate(dir);
  const errorfile = join(dir, 'petstore-503.http');
  await writeFile(errorfile, recipe('petstore-503.http'));
  const config = join(dir, 'haproxy.cfg');
  await writeFile(
    config,
    recipe('haproxy.cfg', {
      'bind :443 ssl crt /etc/haproxy/api.example.com.pem': `bind 127.0.0.1:${port} ssl crt ${bundle}`,
      '/etc/haproxy/errors/petstore-503.http': errorfile,
      ...Object.fromEntries(DOCUMENTED_SERVERS.map((documented, i) => [documented, servers[i]!])),
    }),
  );
  return config;
}

/** A running HAProxy. */
export interface Balancer {
  port: number;
  /** Its log (stderr): alerts, and servers going down and up. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts HAProxy as docs/deploying.md configures it, in front of the three instances at these URLs, and waits until
 * it answers `/livez`.
 * @example const balancer = await startHaproxy(instances.map((i) => i.url)); … await balancer.stop()
 */
export async function startHaproxy(urls: string[]): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-haproxy-'));
  const port = await freePort();
  const config = await writeHaproxyRecipe(dir, port, urls.map((url) => new URL(url).host));
  const balancer: ChildProcess = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  balancer.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  killAtExit(balancer);
  for (let i = 0; ; i++) {
    const ready = await send(port, '/livez').then((r) => r.status === 200, () => false);
    if (ready) break;
    if (i > 100 || balancer.exitCode !== null) throw new Error(`haproxy did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    log: () => log,
    async stop() {
      balancer.kill();
      if (balancer.exitCode === null && balancer.signalCode === null) await once(balancer, 'exit');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
