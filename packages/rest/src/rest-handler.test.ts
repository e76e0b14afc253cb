import { listen, openDatabase, operationRoutes, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPetStore, generateApiKey } from '@petstore/core';
import { sql } from 'kysely';
import { createRestHandler } from './rest-handler.js';
import { expectError, startRestServer, type RestServer } from './testing/rest-server.js';

describe.each(testDatabases)('the REST handler on $name', (database) => {
  let api: RestServer;
  beforeAll(async () => {
    api = await startRestServer(database);
  });
  afterAll(() => api.close());

  const call = (method: string, path: string, headers: Record<string, string> = api.auth, body?: string) =>
    fetch(`${api.base.replace(/\/v1$/, '')}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });

  // Requests without a valid key count against the address (60 a minute); the loops below send more than that, so
  // each test starts a new minute on the store's clock.
  const nextMinute = () => {
    api.clock.at += 60_000;
  };

  describe('authentication', () => {
    beforeEach(nextMinute);
    // Every operation; a body is never read without a key, so any JSON does.
    const requests: [string, string, string?][] = operationRoutes().flatMap((route) =>
      route.operations.map((op): [string, string, string?] =>
        op.method === 'GET' || op.method === 'DELETE' ? [op.method, `/v1${route.path}`] : [op.method, `/v1${route.path}`, '{}'],
      ),
    );

    it.each(requests)('answers %s %s without a key with 401 missing_api_key', async (method, path, body) => {
      await expectError(await call(method, path, { 'content-type': 'application/json' }, body), 401, 'missing_api_key');
    });

    it.each(requests)('answers %s %s with Basic credentials with 401 missing_api_key', async (method, path, body) => {
      const headers = { authorization: 'Basic dXNlcjpwYXNz', 'content-type': 'application/json' };
      await expectError(await call(method, path, headers, body), 401, 'missing_api_key');
    });

    it.each(requests)('answers %s %s with an unknown key with 401 invalid_api_key', async (method, path, body) => {
      const headers = { authorization: 'Bearer psk_thisIsNotAKeyTheServiceIssued000', 'content-type': 'application/json' };
      await expectError(await call(method, path, headers, body), 401, 'invalid_api_key');
    });

    it('answers 401 invalid_api_key to a revoked key', async () => {
      const { key, record } = await api.store.apiKeys.create({ plan: 'free' });
      expect((await call('GET', '/v1/pets', { authorization: `Bearer ${key}` })).status).toBe(200);
      await api.store.apiKeys.revoke(record.id);
      api.clock.at += 1_001; // past the authenticator's one-second cache
      await expectError(await call('GET', '/v1/pets', { authorization: `Bearer ${key}` }), 401, 'invalid_api_key');
    });

    it('accepts the bearer scheme in any case', async () => {
      expect((await call('GET', '/v1/pets', { authorization: `bearer ${api.apiKey}` })).status).toBe(200);
    });
  });

  describe('routing', () => {
    beforeEach(nextMinute);
    it.each(['/v1/orders', '/v1/pets/1/photos', '/v1/pets/', '/v1', '/v1/', '/pets', '/healthz', '/v10/pets'])(
      'answers %s with 404 not_found',
      async (path) => {
        await expectError(await call('GET', path), 404, 'not_found');
      },
    );

    it.each(operationRoutes().flatMap((route) => route.notAllowed.map((method) => [method, `/v1${route.path}`, route.allow])))(
      'answers %s %s with 405 method_not_allowed and Allow: %s',
      async (method, path, allow) => {
        const response = await call(method, path);
        await expectError(response, 405, 'method_not_allowed');
        expect(response.headers.get('allow')).toBe(allow);
      },
    );

    it('answers an OPTIONS that is no preflight with 405 and the path\'s Allow, on every path', async () => {
      for (const route of operationRoutes()) {
        const response = await call('OPTIONS', `/v1${route.path}`);
        await expectError(response, 405, 'method_not_allowed');
        expect(response.headers.get('allow'), route.template).toBe(route.allow);
      }
    });

    it('counts 404 and 405 answers against the caller and shows the rate-limit headers', async () => {
      const { key } = await api.store.apiKeys.create({ plan: 'business', label: 'counts 404 and 405' });
      const auth = { authorization: `Bearer ${key}` };
      const unserved = operationRoutes().find((route) => route.notAllowed.length > 0)!;
      const first = await call('GET', '/v1/nowhere', auth);
      const second = await call(unserved.notAllowed[0]!, `/v1${unserved.path}`, auth);
      await expectError(first, 404, 'not_found');
      await expectError(second, 405, 'method_not_allowed');
      expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
      expect([first, second].map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual(['999', '998']);
      expect(second.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    });

    it('counts requests without a valid key against the client address', async () => {
      const response = await call('GET', '/v1/nowhere', {});
      await expectError(response, 404, 'not_found');
      expect(response.headers.get('ratelimit-policy')).toContain('"address"');
    });
  });

  describe('rate-limit headers', () => {
    it('are on successes and on errors raised after admission', async () => {
      const list = await call('GET', '/v1/pets');
      expect(list.status).toBe(200);
      expect(list.headers.get('x-ratelimit-limit')).toBe('1000');
      const invalid = await call('GET', '/v1/pets?limit=0');
      await expectError(invalid, 400, 'invalid_request');
      expect(invalid.headers.get('x-ratelimit-limit')).toBe('1000');
      const unsupported = await call('POST', '/v1/pets', { ...api.auth, 'content-type': 'text/plain' }, 'Rex');
      await expectError(unsupported, 415, 'unsupported_media_type');
      expect(unsupported.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      const malformed = await call('POST', '/v1/pets', { ...api.auth, 'content-type': 'application/json' }, '{');
      await expectError(malformed, 400, 'malformed_json');
      expect(malformed.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    });
  });

  it('answers 429 rate_limited with Retry-After when the quota is spent', async () => {
    const limited = await startRestServer(database, { plan: 'enterprise', limits: { perMinute: 2, perDay: 100 } });
    try {
      const auth = limited.auth;
      expect((await fetch(`${limited.base}/pets`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${limited.base}/nowhere`, { headers: auth })).status).toBe(404);
      const refused = await fetch(`${limited.base}/pets`, { headers: auth });
      await expectError(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      await expectError(await fetch(`${limited.base}/nowhere`, { headers: auth }), 429, 'rate_limited');
      limited.clock.at += 60_000;
      expect((await fetch(`${limited.base}/pets`, { headers: auth })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  describe('options', () => {
    it('serves under a custom base path and builds links from publicUrl', async () => {
      const custom = await startRestServer(database, {
        handler: { basePath: '/api/v2/', publicUrl: 'https://pets.example.com/api/v2' },
      });
      try {
        const root = custom.base.replace(/\/v1$/, '');
        const response = await fetch(`${root}/api/v2/pets`, {
          method: 'POST',
          headers: { ...custom.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
        });
        const pet = (await response.json()) as { id: number };
        expect(response.headers.get('location')).toBe(`https://pets.example.com/api/v2/pets/${pet.id}`);
        await expectError(await fetch(`${custom.base}/pets`, { headers: custom.auth }), 404, 'not_found');
      } finally {
        await custom.close();
      }
    });

    it('limits requests without a key by the address a trusted proxy forwards', async () => {
      const limited = await startRestServer(database, {
        quota: { perAddressPerMinute: 1 },
        handler: { trustProxy: 'loopback' },
      });
      try {
        const from = (client: string) => fetch(`${limited.base}/pets`, { headers: { 'x-forwarded-for': client } });
        await expectError(await from('203.0.113.1'), 401, 'missing_api_key');
        await expectError(await from('203.0.113.2'), 401, 'missing_api_key');
        const refused = await from('203.0.113.1');
        await expectError(refused, 429, 'rate_limited');
        expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      } finally {
        await limited.close();
      }
    });
  });

  describe('faults', () => {
    it('answers 500 internal_error revealing nothing when storage fails unexpectedly', async () => {
      const broken = await startRestServer(database);
      try {
        await broken.database.db.schema.dropTable('pets').execute();
        const response = await fetch(`${broken.base}/pets`, { headers: broken.auth });
        const body = await expectError(response, 500, 'internal_error');
        expect(body.message).toBe('An internal error occurred.');
        expect(JSON.stringify(body)).not.toMatch(/pets|relation|exist|sql|stack/i);
      } finally {
        await broken.close();
      }
    });

    it('answers 503 unavailable with a generic message once the database of the store was closed', async () => {
      const opened = await database.open();
      const store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable });
      const { key } = await store.apiKeys.create({ plan: 'free' });
      const server = await listen(createRestHandler({ store }));
      try {
        await store.listPets({}, { apiKey: key });
        await opened.close();
        // A page not served before: pages already served may be answered from memory for up to a second.
        const response = await fetch(`${server.url}/v1/pets?limit=3`, { headers: { authorization: `Bearer ${key}` } });
        const body = await expectError(response, 503, 'unavailable');
        expect(body.message).toBe('The service is temporarily unavailable.');
      } finally {
        await server.close();
      }
    });

    it('answers 500 internal_error revealing nothing when the database fails in another way', async () => {
      const opened = await database.open();
      const store = createPetStore({ db: opened.db });
      const { key } = await store.apiKeys.create({ plan: 'free' });
      const server = await listen(createRestHandler({ store }));
      try {
        await sql`drop table pets`.execute(opened.db);
        const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
        const body = await expectError(response, 500, 'internal_error');
        expect(body.message).toBe('An internal error occurred.');
        expect(JSON.stringify(body)).not.toMatch(/pets|relation|select/i);
      } finally {
        await server.close();
        await opened.close();
      }
    });
  });
});

describe('the REST handler without its database', () => {
  it('answers 503 unavailable with a generic message when the database cannot be reached', async () => {
    const { db, isUnavailable } = await openDatabase({ databaseUrl: 'postgres://petstore@127.0.0.1:1/petstore' });
    const server = await listen(createRestHandler({ store: createPetStore({ db, isUnavailable }) }));
    try {
      const headers = { authorization: `Bearer ${generateApiKey()}` };
      const body = await expectError(await fetch(`${server.url}/v1/pets`, { headers }), 503, 'unavailable');
      expect(body.message).toBe('The service is temporarily unavailable.');
      await expectError(await fetch(`${server.url}/v1/nowhere`, { headers }), 503, 'unavailable');
    } finally {
      await server.close();
      await db.destroy();
    }
  });
});
