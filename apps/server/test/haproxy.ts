import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether HAProxy is installed (`.ci/install-haproxy.sh`). */
export const haproxyInstalled = (() => {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A free TCP port of 127.0.0.1, for a program that cannot be told to take port 0.
 * @example const port = await freePort()
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** An answer as `send` reads it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request through the balancer, from a chosen loopback address (so the balancer forwards that address).
 * @example const { status } = await send(port, '/healthz')
 */
export function send(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, localAddress: options.from ?? '127.0.0.1', agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject).end(options.body);
  });
}

/** HAProxy in front of the instances: TLS would end here, so it says `https`; it appends the client's address. */
function haproxyConfig(port: number, backends: number[]) {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  option forwardfor',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  http-request set-header X-Forwarded-Proto https',
    '  default_backend petstore',
    'backend petstore',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    ...backends.map((backend, i) => `  server petstore${i + 1} 127.0.0.1:${backend} check inter 500ms`),
    '',
  ].join('\n');
}

/** A running HAProxy. */
export interface Balancer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts HAProxy round-robin in front of the instances at these URLs and waits until it answers `/healthz`.
 * @example const balancer = await startHaproxy(instances.map((i) => i.url)); … await balancer.stop()
 */
export async function startHaproxy(urls: string[]): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-haproxy-'));
  const port = await freePort();
  const config = join(dir, 'haproxy.cfg');
  await writeFile(config, haproxyConfig(port, urls.map((url) => Number(new URL(url).port))));
  const balancer: ChildProcess = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  for (let i = 0; i < 100; i++) {
    const ready = await send(port, '/healthz').then((r) => r.status === 200, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    async stop() {
      balancer.kill();
      if (balancer.exitCode === null && balancer.signalCode === null) await once(balancer, 'exit');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
