import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dnsmasqInstalled, freePort, startDnsServer } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caddyInstalled, caddyRecipe, startCaddy, type Caddy } from './caddy.js';

const run = promisify(execFile);
import { runCli, startProcess, type ServerProcess } from './helpers.js';

const PLATFORM = 'edge.platform.test';
const PUBLIC_URL = 'https://api.platform.test/v1';

/** An HTTPS request to Caddy on 127.0.0.1 for `name` (SNI and Host), trusting only Caddy's internal CA. */
function httpsGet(port: number, name: string, path: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; issuer: string }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, servername: name, ca, headers: { host: name, ...headers }, agent: false }, (res) => {
        let body = '';
        const cn = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer?.CN ?? '';
        const issuer = Array.isArray(cn) ? cn.join(' ') : cn;
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, issuer }));
      });
      req.on('error', reject).end();
    },
  );
}

describe.runIf(caddyInstalled && dnsmasqInstalled)("custom domains behind Caddy's on-demand TLS, with its internal CA", () => {
  let dir: string;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let server: ServerProcess;
  let caddy: Caddy;
  let ca: string;
  let key: string;
  const env = () => ({ PETSTORE_DATA_DIR: dir, PETSTORE_PLATFORM_HOST: PLATFORM, PETSTORE_DNS_SERVERS: dns.server });
  const cli = (...args: string[]) => runCli(['domains', ...args], env());

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-caddy-service-'));
    dns = await startDnsServer({ addresses: [[PLATFORM, '10.1.2.3']], cnames: [['shop.example.test', PLATFORM]] });
    server = await startProcess({ ...env(), PETSTORE_PUBLIC_URL: PUBLIC_URL, PETSTORE_TRUST_PROXY: 'true', PETSTORE_METRICS_PORT: '0' });
    const metricsUrl = /"metricsUrl":"(http:\/\/[^"]+)"/.exec(server.stdout())![1]!;
    caddy = await startCaddy(new URL(server.url).host, `${metricsUrl}/tls/ask`);
    key = (await runCli(['keys', 'create', '--plan', 'pro'], env())).stdout.trim();
    expect((await cli('add', 'shop.example.test')).code).toBe(0);
    expect((await cli('add', 'wait.example.test')).code).toBe(0);
    expect((await cli('verify', 'shop.example.test')).code).toBe(0);
    ca = await caddy.rootCertificate().catch(() => '');
  }, 60_000);
  afterAll(async () => {
    await caddy?.stop();
    await server?.stop();
    await dns?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a verified domain a certificate, and serves it over HTTPS with links on that domain', async () => {
    // The first handshake for a name makes its certificate (and the CA, the first time).
    await httpsGet(caddy.httpsPort, 'shop.example.test', '/livez', ca).catch(() => undefined);
    ca = await caddy.rootCertificate();
    const answer = await httpsGet(caddy.httpsPort, 'shop.example.test', '/v1/pets?limit=1', ca, { authorization: `Bearer ${key}` });
    expect(answer.status).toBe(200);
    expect(answer.issuer).toMatch(/Caddy Local Authority/);
    const created = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: caddy.httpsPort,
          method: 'POST',
          path: '/v1/pets',
          servername: 'shop.example.test',
          ca,
          agent: false,
          // Another of the service's own hosts, written by the client: the recipe sets the header from the host asked.
          headers: { host: 'shop.example.test', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-host': 'api.platform.test' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        },
      );
      req.on('error', reject).end(JSON.stringify({ name: 'Rex', categoryId: 1 }));
    });
    expect(created.status).toBe(201);
    expect(created.location).toMatch(/^https:\/\/shop\.example\.test\/v1\/pets\/\d+$/);
  });

  it('answers /healthz from the public with the JSON 404 itself, and passes /livez on', async () => {
    ca ||= await caddy.rootCertificate();
    const refused = await httpsGet(caddy.httpsPort, 'shop.example.test', '/healthz', ca);
    expect(refused.status).toBe(404);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(refused.body)).toEqual({ code: 'not_found', message: 'The requested resource could not be found.', status: 404 });
    expect((await httpsGet(caddy.httpsPort, 'shop.example.test', '/livez', ca)).status).toBe(200);
    // Monitoring asks the instance itself.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('gives an unverified domain no certificate: the handshake fails', async () => {
    ca ||= await caddy.rootCertificate();
    await expect(httpsGet(caddy.httpsPort, 'wait.example.test', '/v1/pets', ca)).rejects.toThrow();
    await expect(httpsGet(caddy.httpsPort, 'stranger.example.test', '/v1/pets', ca)).rejects.toThrow();
  });

  it('refuses a removed domain at once', async () => {
    expect((await cli('remove', 'shop.example.test')).code).toBe(0);
    const answer = await httpsGet(caddy.httpsPort, 'shop.example.test', '/v1/pets', ca, { authorization: `Bearer ${key}` });
    expect(answer.status).toBe(421);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'misdirected_request', status: 421 });
  });
});

describe.runIf(caddyInstalled)("the fleet's Caddyfile", () => {
  it('is a configuration Caddy accepts, balancing over the instances and rotating on /livez', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-caddy-fleet-'));
    try {
      const [httpPort, httpsPort] = [await freePort(), await freePort()];
      const text = caddyRecipe(
        'Caddyfile.fleet',
        folder,
        {
          'ask http://10.0.0.11:9464/tls/ask': 'ask http://127.0.0.1:9464/tls/ask',
          'reverse_proxy 10.0.0.11:3000 10.0.0.12:3000 10.0.0.13:3000': 'reverse_proxy 127.0.0.1:3001 127.0.0.1:3002 127.0.0.1:3003',
        },
        [httpPort, httpsPort],
      );
      await writeFile(join(folder, 'Caddyfile'), text);
      const { stdout } = await run('caddy', ['adapt', '--config', 'Caddyfile'], { cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: folder } });
      const json = JSON.parse(stdout) as { apps: { http: { servers: Record<string, { routes: unknown[] }> } } };
      const proxy = JSON.stringify(json.apps.http.servers);
      expect(proxy).toContain('"uri":"/livez"');
      expect(proxy.match(/"dial":"127\.0\.0\.1:300[123]"/g)).toHaveLength(3);
      await run('caddy', ['validate', '--config', 'Caddyfile'], { cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: folder } });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
