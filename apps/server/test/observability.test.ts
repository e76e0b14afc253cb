import { METHODS, request } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

const KEY = 'observed-key-0123456789abcdef';
type Doc = { servers: { url: string }[] };

function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines, raw };
}

describe('request ids, logs and metrics', () => {
  let running: RunningServer;
  const logs = captureLogs();
  beforeAll(async () => {
    const fixed = Date.parse('2026-11-21T12:00:10Z');
    running = await startServer(loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:free` }), {
      logger: logs.logger,
      clock: { now: () => fixed },
    });
  });
  afterAll(() => running.close());

  const waitForLine = async (reqId: string) => {
    for (let i = 0; i < 50 && !logs.lines.some((l) => l.reqId === reqId); i++) await new Promise((r) => setTimeout(r, 10));
    return logs.lines.filter((l) => l.reqId === reqId);
  };

  it('echoes a sane X-Request-Id and logs one line for the request under it, without the key or the body', async () => {
    const response = await fetch(`${running.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-request-id': 'trace-abc-123' },
      body: JSON.stringify({ name: 'Secret Body Name', categoryId: 1 }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
    const lines = await waitForLine('trace-abc-123');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'POST', route: '/v1/pets', status: 201, keyId: expect.any(Number) });
    expect(lines[0]!.durationMs).toBeTypeOf('number');
    const text = logs.raw.join('\n');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('Secret Body Name');
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('makes up a request id when none or an unusable one is sent, on every kind of response', async () => {
    const ids = new Set<string>();
    for (const [path, headers] of [
      ['/v1/pets', {}],
      ['/healthz', {}],
      ['/nowhere', {}],
      ['/trpc/pets.list', { authorization: `Bearer ${KEY}` }],
      ['/v1/pets', { 'x-request-id': 'has spaces in it' }],
      ['/v1/pets', { 'x-request-id': 'x'.repeat(129) }],
    ] as const) {
      const id = (await fetch(`${running.url}${path}`, { headers })).headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(6);
  });

  it('serves Prometheus metrics on their own port only, counting requests by route and status and 429s by plan', async () => {
    for (let i = 0; i < 62; i++) await fetch(`${running.url}/v1/pets/${1 + (i % 3)}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
    const response = await fetch(`${running.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    const text = await response.text();
    expect(text).toMatch(/petstore_http_requests_total\{method="GET",route="\/v1\/pets\/\{petId\}",status="429"\} [1-9]/);
    expect(text).toMatch(/petstore_rate_limited_total\{plan="free",code="rate_limited"\} [1-9]/);
    expect(text).toMatch(/petstore_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/pets\/\{petId\}"\}/);
    expect(text).not.toMatch(/route="\/v1\/pets\/[0-9]/);
  });

  it('counts calls of deprecated operations, and every call, by plan on the metrics port, never by key', async () => {
    const text = await (await fetch(`${running.metricsUrl}/metrics`)).text();
    const deprecated = /petstore_deprecated_calls_total\{operation="getPet",plan="free"\} (\d+)/.exec(text);
    expect(deprecated).not.toBeNull();
    expect(Number(deprecated![1])).toBeGreaterThan(0);
    expect(text).toMatch(/petstore_calls_total\{plan="free",operation="getPet",outcome="rateLimited"\} [1-9]/);
    expect(text).not.toMatch(/key_id|keyId/);
  });

  it('labels metrics and logs by route template, so made-up paths cannot grow the series', async () => {
    const series = async () => (await (await fetch(`${running.metricsUrl}/metrics`)).text()).split('\n').filter((l) => l.startsWith('petstore_http_')).length;
    await fetch(`${running.url}/trpc/warm.up`);
    await fetch(`${running.url}/nowhere-warm`);
    const before = await series();
    for (let i = 0; i < 150; i++) {
      await fetch(`${running.url}/trpc/pets.list,made.up${i}?batch=1`);
      await fetch(`${running.url}/v1/made-up-${i}`);
    }
    const after = await series();
    expect(after - before).toBeLessThan(40);
    const text = await (await fetch(`${running.metricsUrl}/metrics`)).text();
    expect(text).not.toContain('made.up');
    expect(text).not.toContain('made-up');
    expect(text).toContain('route="unmatched"');
  });

  it("labels a method outside HTTP's own as _OTHER, so a client without a key cannot grow the series with methods", async () => {
    const scrape = async () => (await (await fetch(`${running.metricsUrl}/metrics`)).text()).split('\n').filter((l) => l.startsWith('petstore_'));
    // Every method Node's parser takes (WebDAV's, UPnP's, PURGE, …): the others never reach the service.
    const methods = METHODS.filter((method) => method !== 'CONNECT');
    await fetch(`${running.url}/v1/pets`, { method: 'PURGE' });
    const before = (await scrape()).length;
    for (const method of methods) {
      for (const path of ['/v1/pets', '/v1/pets/1', '/v1/orders', '/nowhere']) {
        await new Promise<void>((resolve) => request(`${running.url}${path}`, { method }, (res) => res.resume().on('end', resolve)).on('error', () => resolve()).end());
      }
    }
    const after = await scrape();
    console.log(`series after ${methods.length} methods on 4 paths: ${before} before, ${after.length} after`);
    expect(after.filter((line) => /method="(PROPFIND|MKCOL|PURGE|M-SEARCH|UNLOCK)"/.test(line))).toEqual([]);
    expect(after.some((line) => line.includes('method="_OTHER"'))).toBe(true);
  });
});

describe('metrics without PETSTORE_METRICS_PORT', () => {
  it('opens no metrics listener, and /metrics on the API port is an unknown path', async () => {
    const running = await startServer(loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://' }));
    try {
      expect(running.metricsUrl).toBeUndefined();
      const response = await fetch(`${running.url}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
    } finally {
      await running.close();
    }
  });
});

describe('custom domains', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: '0',
        PETSTORE_DATA_DIR: 'memory://',
        PETSTORE_API_KEYS: `${KEY}:pro`,
        PETSTORE_TRUST_PROXY: 'true',
        PETSTORE_REDIRECTS: 'old.example.com=api.example.com,legacy.example.net=api.example.com@308',
      }),
    );
  });
  afterAll(() => running.close());

  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pets.example.com', 'x-forwarded-for': '203.0.113.9' };

  it('builds Location and Link from the forwarded scheme behind a trusted proxy, and the Host header: no public address, no forwarded host', async () => {
    const auth = { authorization: `Bearer ${KEY}`, ...forwarded };
    const host = new URL(running.url).host;
    const created = await fetch(`${running.url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Far', categoryId: 1 }),
    });
    const pet = (await created.json()) as { id: number };
    expect(created.headers.get('location')).toBe(`https://${host}/v1/pets/${pet.id}`);
    await fetch(`${running.url}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Away', categoryId: 1 }) });
    const list = await fetch(`${running.url}/v1/pets?limit=1`, { headers: auth });
    expect(list.headers.get('link')).toMatch(new RegExp(`^<https://${host.replace(/\./g, '\\.')}/v1/pets\\?limit=1&cursor=[^>]+>; rel="next"$`));
    const get = await fetch(`${running.url}/v1/pets/${pet.id}`, { headers: auth });
    expect(get.headers.get('link')).toBe(`<https://${host}/v1/pets>; rel="successor-version"`);
  });

  it('lists the address it listens on as the OpenAPI servers when none is configured, never a forwarded host', async () => {
    const document = (await (await fetch(`${running.url}/v1/openapi.json`, { headers: forwarded })).json()) as Doc;
    expect(document.servers.map((s) => s.url)).toEqual([`${running.url}/v1`]);
  });

  it('counts requests without a key by the forwarded client address', async () => {
    const other = { ...forwarded, 'x-forwarded-for': '198.51.100.7, 10.0.0.1' };
    const first = await fetch(`${running.url}/v1/pets`, { headers: other });
    const second = await fetch(`${running.url}/v1/pets`, { headers: other });
    expect(first.status).toBe(401);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    const elsewhere = await fetch(`${running.url}/v1/pets`, { headers: { ...forwarded, 'x-forwarded-for': '192.0.2.44' } });
    expect(elsewhere.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('redirects a configured source domain to its target, keeping path and query, with 301 or 308', async () => {
    const moved = await fetch(`${running.url}/v1/pets?limit=5&status=sold`, { headers: { 'x-forwarded-host': 'old.example.com', 'x-forwarded-proto': 'https' }, redirect: 'manual' });
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('https://api.example.com/v1/pets?limit=5&status=sold');
    const kept = await fetch(`${running.url}/v1/pets`, { method: 'POST', headers: { 'x-forwarded-host': 'LEGACY.example.net:443' }, redirect: 'manual' });
    expect(kept.status).toBe(308);
    expect(kept.headers.get('location')).toBe('http://api.example.com/v1/pets');
  });
});

describe('forwarded headers without a trusted proxy', () => {
  it('ignores X-Forwarded-* and links to the address the request was sent to', async () => {
    const running = await startServer(loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro` }));
    try {
      const created = await fetch(`${running.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-forwarded-host': 'evil.example.com' },
        body: JSON.stringify({ name: 'Home', categoryId: 1 }),
      });
      expect(created.headers.get('location')).toMatch(new RegExp(`^${running.url}/v1/pets/\\d+$`));
    } finally {
      await running.close();
    }
  });
});
