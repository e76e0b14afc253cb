import { operationRoutes, processClock, type ProcessClock } from '@petstore/testing';
import { procedures } from '@petstore/trpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from './helpers.js';

const KEY = 'cors_test_key_0123456789';
// The tests that count requests each have a key of their own, so no other test moves their numbers.
const UNCOUNTED_KEY = 'cors_uncounted_key_0123456789';
const LIMITED_KEY = 'cors_limited_key_0123456789';
const ALLOWED = 'https://app.example.com';
const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'Link',
  'Location',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'ETag',
];

const preflight = (url: string, origin: string, method: string, headers = 'authorization, content-type') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

describe('CORS with a list of allowed origins', () => {
  let server: ServerProcess;
  // The limits count per clock minute: the server's clock is one the test controls.
  let clock: ProcessClock;
  beforeAll(async () => {
    clock = await processClock();
    server = await startProcess({
      ...clock.env,
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${KEY}:free,${UNCOUNTED_KEY}:free,${LIMITED_KEY}:free`,
      PETSTORE_CORS_ORIGINS: `${ALLOWED},https://admin.example.com`,
    });
  });
  afterAll(async () => {
    await server.stop();
    await clock.close();
  });
  const auth = { authorization: `Bearer ${KEY}` };

  it('answers a preflight on a known path with 204 and the path\'s methods, without a key and without counting it', async () => {
    const uncounted = { authorization: `Bearer ${UNCOUNTED_KEY}` };
    const counted = async () => {
      const { headers } = await fetch(`${server.url}/v1/pets`, { headers: uncounted });
      return { remaining: headers.get('x-ratelimit-remaining'), reset: headers.get('x-ratelimit-reset') };
    };
    const before = await counted();
    const [route] = operationRoutes();
    const answer = await preflight(`${server.url}/v1${route!.path}`, ALLOWED, route!.operations[0]!.method);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('access-control-allow-methods')).toBe(route!.allow);
    expect(answer.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id');
    expect(answer.headers.get('access-control-max-age')).toBe('7200');
    expect(answer.headers.get('vary')).toBe('Origin');
    expect(answer.headers.get('content-length')).toBeNull(); // RFC 9110: no Content-Length on a 204
    for (const { path, allow, operations } of operationRoutes()) {
      const each = await preflight(`${server.url}/v1${path}`, ALLOWED, operations[0]!.method);
      expect([each.status, each.headers.get('access-control-allow-methods')], path).toEqual([204, allow]);
    }
    for (const [path, procedure] of Object.entries(procedures)) {
      const method = procedure.type === 'mutation' ? 'POST' : 'GET';
      const trpc = await preflight(`${server.url}/trpc/${path}`, ALLOWED, method);
      expect([trpc.status, trpc.headers.get('access-control-allow-methods')], path).toEqual([204, method]);
    }
    const after = await counted();
    // The server's clock is real: when a new minute began meanwhile, the second request is its first.
    expect([before.remaining, after.remaining]).toEqual(['59', after.reset === before.reset ? '58' : '59']);
  });

  it('answers an OPTIONS that is not a preflight, or a preflight on an unknown path, as before', async () => {
    for (const { path, allow } of operationRoutes()) {
      const plain = await fetch(`${server.url}/v1${path}`, { method: 'OPTIONS', headers: auth });
      expect([plain.status, plain.headers.get('allow')], path).toEqual([405, allow]);
    }
    expect((await preflight(`${server.url}/v1/orders`, ALLOWED, 'GET')).status).toBe(404);
  });

  it('adds the origin and the exposed headers to every answer to an allowed origin, errors and 429s included', async () => {
    const ok = await fetch(`${server.url}/v1/pets`, { headers: { ...auth, origin: ALLOWED } });
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(ok.headers.get('access-control-expose-headers')?.split(', ')).toEqual(EXPOSED);
    expect(ok.headers.get('vary')).toBe('Origin');
    const missing = await fetch(`${server.url}/v1/pets`, { headers: { origin: ALLOWED } });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const trpc = await fetch(`${server.url}/trpc/pets.list`, { headers: { ...auth, origin: ALLOWED } });
    expect(trpc.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(trpc.headers.get('vary')).toBe('trpc-accept, accept, Origin');
    await clock.minuteWithRoom(10);
    let limited: Response | undefined;
    for (let i = 0; i < 70 && limited === undefined; i++) {
      const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${LIMITED_KEY}`, origin: ALLOWED } });
      if (response.status === 429) limited = response;
    }
    expect(limited?.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(limited?.headers.get('retry-after')).toMatch(/^[0-9]+$/);
  });

  it('answers a disallowed origin normally, without CORS headers', async () => {
    const response = await fetch(`${server.url}/v1/openapi.json`, { headers: { origin: 'https://evil.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    // The document is sent compressed when the client takes it, so its answer varies by Accept-Encoding too.
    expect(response.headers.get('vary')).toBe('Accept-Encoding, Origin');
    const answer = await preflight(`${server.url}/v1/pets`, 'https://evil.example.com', 'GET');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS by default and turned off', () => {
  it('allows any origin with * and no Vary by default, and none with false', async () => {
    const open = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:free` });
    const closed = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:free`, PETSTORE_CORS_ORIGINS: 'false' });
    try {
      const any = await fetch(`${open.url}/v1/pets`, { headers: { origin: 'https://anyone.example' } });
      expect(any.headers.get('access-control-allow-origin')).toBe('*');
      expect(any.headers.get('vary')).toBeNull();
      const none = await fetch(`${closed.url}/v1/pets`, { headers: { origin: 'https://anyone.example' } });
      expect(none.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await Promise.all([open.stop(), closed.stop()]);
    }
  });

  it('refuses a value of PETSTORE_CORS_ORIGINS that is not an origin, naming it', async () => {
    await expect(
      startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_CORS_ORIGINS: 'https://app.example.com/path' }),
    ).rejects.toThrow(/PETSTORE_CORS_ORIGINS.*is not an origin/s);
  });
});
