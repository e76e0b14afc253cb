import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

const KEY = 'the-one-real-key-0123456789';
/** One minute's window throughout, wherever the run falls on the wall clock: the counts below must not straddle two. */
const clock = { now: () => Date.parse('2026-11-21T12:00:10Z') };

/** A request with headers fetch will not send (Host) and any method. */
function send(url: string, path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: target.hostname, port: target.port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

const rateHeaders = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => /ratelimit|retry-after|content-type/.test(name)));

describe('the trust rules at the edge, without a proxy', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: '0',
        PETSTORE_DATA_DIR: 'memory://',
        PETSTORE_API_KEYS: `${KEY}:free`,
        PETSTORE_PUBLIC_URL: 'https://api.example.com/v1',
      }),
      { clock },
    );
  });
  afterAll(() => running.close());

  it('answers a right key exactly like a wrong one once the address has used up its limit on made-up keys', async () => {
    for (let i = 0; i < 61; i++) {
      const wrong = await send(running.url, '/v1/pets', { authorization: `Bearer made-up-key-${i}-0000000000` });
      expect(wrong.status).toBe(i < 60 ? 401 : 429);
    }
    const guess = await send(running.url, '/v1/pets', { authorization: 'Bearer made-up-key-last-000000000' });
    const right = await send(running.url, '/v1/pets', { authorization: `Bearer ${KEY}` });
    expect(right.status).toBe(429);
    expect(right.body).toBe(guess.body);
    expect(rateHeaders(right.headers)).toEqual(rateHeaders(guess.headers));
    const trpc = await send(running.url, '/trpc/pets.list?input=%7B%7D', { authorization: `Bearer ${KEY}` });
    expect(trpc.status).toBe(429);
  });

  it('links to the public address whatever Host or X-Forwarded-* a client sends', async () => {
    const headers = {
      authorization: `Bearer ${KEY}`,
      'x-forwarded-for': '203.0.113.50',
      'x-forwarded-proto': 'javascript',
      'x-forwarded-host': 'evil.example.net',
    };
    // A server of its own: the previous test left 127.0.0.1 over its address limit on the shared one.
    const other = await startServer(
      loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_PUBLIC_URL: 'https://api.example.com/v1' }),
    );
    try {
      const body = JSON.stringify({ name: 'Linked', categoryId: 1 });
      for (let i = 0; i < 2; i++) {
        const created = await fetch(`${other.url}/v1/pets`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
        });
        expect(created.headers.get('location')).toMatch(/^https:\/\/api\.example\.com\/v1\/pets\/\d+$/);
      }
      const list = await send(other.url, '/v1/pets?limit=1', { ...headers, host: 'evil.example.net' });
      expect(list.headers['link']).toMatch(/^<https:\/\/api\.example\.com\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
      const trpc = await send(other.url, '/trpc/pets.list?input=%7B%22limit%22%3A1%7D', { ...headers, host: 'evil.example.net' });
      expect(trpc.headers['link']).toMatch(/^<https:\/\/api\.example\.com\/trpc\/pets\.list\?input=[^>]+>; rel="next"$/);
      const document = JSON.parse((await send(other.url, '/v1/openapi.json', { host: 'evil.example.net' })).body) as {
        servers: { url: string }[];
      };
      expect(document.servers.map((server) => server.url)).toEqual(['https://api.example.com/v1']);
    } finally {
      await other.close();
    }
  });
});

describe('the trust rules at the edge, behind one trusted proxy', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: '0',
        PETSTORE_DATA_DIR: 'memory://',
        PETSTORE_API_KEYS: `${KEY}:free`,
        PETSTORE_TRUST_PROXY: 'true',
      }),
      { clock },
    );
  });
  afterAll(() => running.close());

  it('takes the address the proxy appended, so rotating the client-written entry gains nothing', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) {
      const response = await send(running.url, '/v1/pets', { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status !== 429)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual(Array(10).fill(429));
  });

  it('takes X-Forwarded-Proto only as http or https', async () => {
    const headers = { authorization: `Bearer ${KEY}`, 'x-forwarded-for': '203.0.113.8', host: 'pets.example.com' };
    for (let i = 0; i < 2; i++) {
      await fetch(`${running.url}/v1/pets`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `P${i}`, categoryId: 1 }),
      });
    }
    const odd = await send(running.url, '/v1/pets?limit=1', { ...headers, 'x-forwarded-proto': 'javascript' });
    expect(odd.headers['link']).toMatch(/^<http:\/\/pets\.example\.com\/v1\/pets\?/);
    const secure = await send(running.url, '/v1/pets?limit=1', { ...headers, 'x-forwarded-proto': 'https' });
    expect(secure.headers['link']).toMatch(/^<https:\/\/pets\.example\.com\/v1\/pets\?/);
  });

  it('never links to a forwarded host with no public address configured: the Host header only', async () => {
    const headers = {
      authorization: `Bearer ${KEY}`,
      'x-forwarded-for': '203.0.113.9',
      host: 'pets.example.com',
      'x-forwarded-host': 'evil.example',
    };
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const target = new URL(running.url);
      const req = request(
        { host: target.hostname, port: target.port, path: '/v1/pets', method: 'POST', headers: { ...headers, 'content-type': 'application/json' } },
        (res) => (res.resume(), resolve(res.headers['location'])),
      );
      req.on('error', reject).end(JSON.stringify({ name: 'Located', categoryId: 1 }));
    });
    expect(location).toMatch(/^http:\/\/pets\.example\.com\/v1\/pets\/\d+$/);
    const list = await send(running.url, '/v1/pets?limit=1', headers);
    expect(list.status).toBe(200);
    expect(list.headers['link']).toMatch(/^<http:\/\/pets\.example\.com\/v1\/pets\?limit=1&cursor=/);
    const trpc = await send(running.url, '/trpc/pets.list?input=%7B%22limit%22%3A1%7D', headers);
    expect(trpc.headers['link']).toMatch(/^<http:\/\/pets\.example\.com\/trpc\/pets\.list\?input=/);
    for (const answer of [list, trpc]) expect(JSON.stringify(answer.headers)).not.toContain('evil.example');
  });
});

describe('the address limit and a key that has succeeded from that address', () => {
  const PROBE = 'probe_pro_key_0123456789';
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${PROBE}:pro` }),
      { clock },
    );
  });
  afterAll(() => running.close());

  /** What is left of the key's day, from the IETF `RateLimit` field every answer to a valid key carries. */
  const dayRemaining = (headers: Record<string, string | string[] | undefined>) =>
    Number(/"day";r=(\d+)/.exec(String(headers['ratelimit']))?.[1]);

  it('keeps serving the key while made-up keys from its address are refused, and charges it none of their refusals', async () => {
    const first = await send(running.url, '/v1/pets', { authorization: `Bearer ${PROBE}` });
    expect(first.status).toBe(200);
    expect(dayRemaining(first.headers)).toBe(9_999);
    for (let i = 0; i < 61; i++) {
      const wrong = await send(running.url, '/v1/pets', { authorization: `Bearer made-up-key-${i}-0000000000` });
      expect(wrong.status).toBe(i < 60 ? 401 : 429);
    }
    for (let i = 0; i < 8; i++) {
      const again = await send(running.url, '/v1/pets', { authorization: `Bearer ${PROBE}` });
      expect(again.status).toBe(200);
      expect(dayRemaining(again.headers)).toBe(9_998 - i);
    }
    const trpc = await send(running.url, '/trpc/pets.list?input=%7B%7D', { authorization: `Bearer ${PROBE}` });
    expect(trpc.status).toBe(200);
    expect((await send(running.url, '/v1/pets', { authorization: 'Bearer made-up-key-more-00000000' })).status).toBe(429);
  });
});
