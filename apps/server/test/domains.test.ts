import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, dnsmasqInstalled, scratchPostgres, startDnsServer } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startProcess, type ServerProcess } from './helpers.js';

const PLATFORM = 'edge.platform.test';
const PLATFORM_ADDRESS = '10.1.2.3';
const PUBLIC_URL = 'https://api.platform.test/v1';

/** A GET with the Host header of the test's choosing, to the server's own address. */
export function get(base: string, path: string, host: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

const metricsUrlOf = (server: ServerProcess) => /"metricsUrl":"(http:\/\/[^"]+)"/.exec(server.stdout())![1]!;
const ask = async (server: ServerProcess, domain: string) => (await fetch(`${metricsUrlOf(server)}/tls/ask?domain=${domain}`)).status;

/** Waits until `probe` holds, up to `limitMs`; answers how long it took. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(dnsmasqInstalled)('custom domains on the embedded database, managed with the key tool while the service runs', () => {
  let dir: string;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let server: ServerProcess;
  let key: string;
  const env = () => ({ PETSTORE_DATA_DIR: dir, PETSTORE_PLATFORM_HOST: PLATFORM, PETSTORE_DNS_SERVERS: dns.server });
  const cli = (...args: string[]) => runCli(['domains', ...args], env());
  const auth = () => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-domains-'));
    dns = await startDnsServer({ addresses: [[PLATFORM, PLATFORM_ADDRESS]] });
    server = await startProcess({ ...env(), PETSTORE_PUBLIC_URL: PUBLIC_URL, PETSTORE_METRICS_PORT: '0' });
    key = /"key":"([^"]+)"/.exec(server.stdout())?.[1] ?? '';
    if (!key) {
      const created = await runCli(['keys', 'create', '--plan', 'pro'], env());
      key = created.stdout.trim();
    }
  });
  afterAll(async () => {
    await server?.stop();
    await dns?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves any host while no domain is managed', async () => {
    expect((await get(server.url, '/v1/pets', 'anything.example.test', auth())).status).toBe(200);
    expect(await ask(server, 'shop.example.test')).toBe(404);
  });

  it('adds a domain as pending: it is not served, and other hosts now get 421 except the public host and health', async () => {
    const added = await cli('add', 'shop.example.test');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Point it at ${PLATFORM}`);
    const misdirected = await get(server.url, '/v1/pets', 'shop.example.test', auth());
    expect(misdirected.status).toBe(421);
    expect(JSON.parse(misdirected.body)).toEqual({
      code: 'misdirected_request',
      message: 'This host is not served here: the request was sent to a domain this service does not answer for.',
      status: 421,
    });
    expect(misdirected.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await get(server.url, '/trpc/pets.list', 'other.example.test', auth())).status).toBe(421);
    expect((await get(server.url, '/v1/pets', 'api.platform.test', auth())).status).toBe(200);
    expect((await get(server.url, '/healthz', 'other.example.test')).status).toBe(200);
    expect((await get(server.url, '/livez', 'other.example.test')).status).toBe(200);
    expect(await ask(server, 'shop.example.test')).toBe(404);
  });

  it('refuses to verify a domain without its CNAME, naming what to add, and lists it as pending with the reason', async () => {
    const verify = await cli('verify', 'shop.example.test');
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`shop.example.test is not verified (pending): shop.example.test has no CNAME record: add shop.example.test CNAME ${PLATFORM}.`);
    const list = await cli('list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ domain: 'shop.example.test', state: 'pending', reason: `shop.example.test has no CNAME record: add shop.example.test CNAME ${PLATFORM}` }),
    ]);
  });

  it('names a conflicting A record', async () => {
    await dns.set({ addresses: [[PLATFORM, PLATFORM_ADDRESS], ['shop.example.test', '10.9.9.9']] });
    const verify = await cli('verify', 'shop.example.test');
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain('has an address record (10.9.9.9) instead of a CNAME');
  });

  it('serves a verified domain at once: links use it, the OpenAPI servers list it, and it may have a certificate', async () => {
    await dns.set({ addresses: [[PLATFORM, PLATFORM_ADDRESS]], cnames: [['shop.example.test', PLATFORM]] });
    const verify = await cli('verify', 'shop.example.test');
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toBe(`Verified shop.example.test: found CNAME ${PLATFORM}. It is served now, and may have a certificate.\n`);
    const created = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const req = request(
        { hostname, port, method: 'POST', path: '/v1/pets', headers: { host: 'shop.example.test', ...auth(), 'content-type': 'application/json', 'x-forwarded-proto': 'https' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        },
      );
      req.on('error', reject).end(JSON.stringify({ name: 'Rex', categoryId: 1 }));
    });
    expect(created.status).toBe(201);
    expect(created.location).toMatch(/^http:\/\/shop\.example\.test\/v1\/pets\/\d+$/);
    const openapi = JSON.parse((await get(server.url, '/v1/openapi.json', 'shop.example.test')).body) as { servers: { url: string }[] };
    expect(openapi.servers.map((s) => s.url)).toEqual([PUBLIC_URL, 'https://shop.example.test/v1']);
    expect(await ask(server, 'shop.example.test')).toBe(200);
    expect(await ask(server, 'other.example.test')).toBe(404);
  });

  it('redirects a verified domain to another, keeping path and query', async () => {
    await dns.set({ addresses: [[PLATFORM, PLATFORM_ADDRESS], ['example.test', PLATFORM_ADDRESS]], cnames: [['shop.example.test', PLATFORM]] });
    expect((await cli('add', 'example.test')).code).toBe(0);
    expect((await cli('verify', 'example.test')).code).toBe(0);
    const set = await cli('redirect', 'example.test', 'shop.example.test', '--status', '308');
    expect(set.code, set.stderr).toBe(0);
    const redirected = await get(server.url, '/v1/pets?limit=2&status=sold', 'example.test');
    expect(redirected.status).toBe(308);
    expect(redirected.headers.location).toBe('http://shop.example.test/v1/pets?limit=2&status=sold');
    expect((await cli('redirect', 'example.test', 'shop.example.test', '--status', '302')).code).toBe(2);
    expect((await cli('redirect', 'example.test', 'none')).code).toBe(0);
    expect((await get(server.url, '/v1/pets', 'example.test', auth())).status).toBe(200);
  });

  it('stops serving a removed domain with the very next request, and allows it no certificate', async () => {
    expect((await get(server.url, '/v1/pets', 'shop.example.test', auth())).status).toBe(200);
    const removed = await cli('remove', 'shop.example.test');
    expect(removed.code, removed.stderr).toBe(0);
    expect((await get(server.url, '/v1/pets', 'shop.example.test', auth())).status).toBe(421);
    expect(await ask(server, 'shop.example.test')).toBe(404);
    expect((await cli('remove', 'shop.example.test')).code).toBe(2);
  });

  it('refuses bad command lines with 2', async () => {
    expect((await cli('add', 'not_a_domain')).code).toBe(2);
    expect((await cli('add')).code).toBe(2);
    expect((await cli('list', '--status', '301')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
  });
});

describe.runIf(databaseUrl && dnsmasqInstalled)('custom domains on a fleet of two instances on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let instances: ServerProcess[];
  let key: string;
  const env = () => ({ DATABASE_URL: db.url, PETSTORE_PLATFORM_HOST: PLATFORM, PETSTORE_DNS_SERVERS: dns.server });
  const cli = (...args: string[]) => runCli(['domains', ...args], env());
  const statuses = (host: string) =>
    Promise.all(instances.map(async (instance) => (await get(instance.url, '/v1/pets', host, { authorization: `Bearer ${key}` })).status));

  beforeAll(async () => {
    db = await scratchPostgres();
    dns = await startDnsServer({ addresses: [[PLATFORM, PLATFORM_ADDRESS]], cnames: [['shop.example.test', PLATFORM]] });
    instances = [await startProcess({ ...env(), PETSTORE_PUBLIC_URL: PUBLIC_URL })];
    instances.push(await startProcess({ ...env(), PETSTORE_PUBLIC_URL: PUBLIC_URL }));
    key = (await runCli(['keys', 'create', '--plan', 'pro'], env())).stdout.trim();
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await dns?.stop();
    await db?.drop();
  });

  it('serves a verified domain on every instance within 1 s, and refuses it on every instance within 1 s of its removal', async () => {
    expect(await statuses('shop.example.test')).toEqual([200, 200]);
    expect((await cli('add', 'shop.example.test')).code).toBe(0);
    const pending = await within(1000, async () => (await statuses('shop.example.test')).every((s) => s === 421));
    const verify = await cli('verify', 'shop.example.test');
    expect(verify.code, verify.stderr).toBe(0);
    const served = await within(1000, async () => (await statuses('shop.example.test')).every((s) => s === 200));
    expect((await cli('remove', 'shop.example.test')).code).toBe(0);
    const refused = await within(1000, async () => (await statuses('shop.example.test')).every((s) => s === 421));
    console.log(`fleet of 2: pending 421 after ${pending.toFixed(0)} ms, served after ${served.toFixed(0)} ms, refused after ${refused.toFixed(0)} ms`);
    // Its last domain removed, the service still answers only its own hosts.
    expect(await statuses('api.platform.test')).toEqual([200, 200]);
    expect(await statuses('shop.example.test')).toEqual([421, 421]);
  });
});
