import { createPetStore, PetStoreError, type ErrorBody } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import { createTRPCClient, httpBatchStreamLink, TRPCClientError } from '@trpc/client';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../app-router.js';
import { PUBLIC_BASE_URL, startTrpcServer, type TrpcServer } from '../testing/trpc-server.js';
import { createTrpcHandler } from './trpc-handler.js';

const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => expect.unreachable('expected a TRPCClientError'),
    (e: unknown) => e
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
};

describe.each(testDatabases)('the tRPC API on $name', (database) => {
  let server: TrpcServer;
  let auth: Record<string, string>;
  /** A request with any method (fetch refuses TRACE and friends). */
  const rawRequest = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const target = new URL(server.trpcUrl);
      const req = request({ host: target.hostname, port: target.port, method, path: `${target.pathname}${path}`, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject).end();
    });
  const url = (path: string, input?: unknown) =>
    `${server.trpcUrl}/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;

  let apiKey: string;
  /** A typed client with this test's key, unless told another (or none, with null). */
  const keyed = (key: string | null = apiKey, options?: { batch?: boolean }) => server.client(key, options);

  beforeAll(async () => {
    server = await startTrpcServer(database);
  });
  // Each test has a free key of its own: the quota a test counts is never spent by the tests before it.
  beforeEach(async () => {
    apiKey = (await server.store.apiKeys.create({ plan: 'free', label: expect.getState().currentTestName?.slice(-100) })).key;
    auth = { authorization: `Bearer ${apiKey}` };
  });
  afterAll(() => server.close());

  it('creates an animal with pets.create and reads it back with pets.get', async () => {
    const client = keyed();
    const created = await client.pets.create.mutate({ name: 'Rex', categoryId: 3 });
    expect(created).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(await client.pets.get.query({ petId: created.id })).toEqual(created);
  });

  it('lists animals with pets.list and links the next page', async () => {
    const client = keyed();
    for (const name of ['a', 'b', 'c']) await client.pets.create.mutate({ name, categoryId: 1, status: 'pending' });
    const first = await client.pets.list.query({ limit: 2, status: 'pending' });
    expect(first.map((pet) => pet.name)).toEqual(['a', 'b']);

    const response = await fetch(url('pets.list', { limit: 2, status: 'pending' }), { headers: auth });
    const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(/^https:\/\/api\.petstore\.dev\/trpc\/pets\.list\?input=/);
    const local = next!.replace('https://api.petstore.dev/trpc', server.trpcUrl);
    const second = (await (await fetch(local, { headers: auth })).json()) as { result: { data: { name: string }[] } };
    expect(second.result.data.map((pet) => pet.name)).toEqual(['c']);
  });

  it('pages with pets.page, which carries the next cursor in its body for tRPC clients', async () => {
    const client = keyed();
    for (let i = 0; i < 3; i++) await client.pets.create.mutate({ name: `paged${i}`, categoryId: 9, status: 'pending' });
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.pets.page.query({ limit: 2, status: 'pending', ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const all = await client.pets.list.query({ limit: 100, status: 'pending' });
    expect(seen).toEqual(all.map((p) => p.id));
  });

  it('answers 401 missing_api_key with the Error body in error.data.error and HTTP status 401', async () => {
    const error = await failure(server.client(null).pets.list.query({}));
    expect(error.data?.error).toEqual({
      code: 'missing_api_key',
      status: 401,
      message: 'An API key is required: send it as "Authorization: Bearer <API_KEY>".',
    });
    expect(error.message).toBe(error.data?.error.message);
    expect(error.data?.httpStatus).toBe(401);
    expect(error.data?.code).toBe('UNAUTHORIZED');
    expect(error.data).not.toHaveProperty('stack');

    const response = await fetch(url('pets.list', {}));
    expect(response.status).toBe(401);
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('answers 401 invalid_api_key for a key it does not know', async () => {
    const error = await failure(server.client('x'.repeat(24)).pets.list.query({}));
    expect(error.data?.error).toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('refuses a missing key before it looks at the input', async () => {
    const error = await failure(server.client(null).pets.create.mutate({ name: '', categoryId: 'x' } as never));
    expect(error.data?.error.code).toBe('missing_api_key');
  });

  it('answers 400 invalid_request listing every failing field, unknown fields included', async () => {
    const input = { name: 'x', categoryId: '7', id: 1 } as never;
    const error = await failure(keyed().pets.create.mutate(input));
    expect(error.data?.httpStatus).toBe(400);
    expect(error.data?.error).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: 'Invalid value for: categoryId, id.',
    });
    expect(error.data?.error.details).toEqual([
      { path: 'categoryId', message: expect.any(String) },
      { path: 'id', message: 'is not a known field' },
    ]);
  });

  it('answers 400 invalid_request for a missing name and a limit out of range', async () => {
    const create = await failure(keyed().pets.create.mutate({ categoryId: 1 } as never));
    expect(create.data?.error.details?.map((d) => d.path)).toEqual(['name']);
    const list = await failure(keyed().pets.list.query({ limit: 101 }));
    expect(list.data?.error).toMatchObject({ code: 'invalid_request', details: [{ path: 'limit' }] });
  });

  it('answers 400 malformed_json for a body that is not JSON', async () => {
    const response = await fetch(url('pets.create'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; data: { error: unknown } } };
    expect(body.error.data.error).toEqual({
      code: 'malformed_json',
      status: 400,
      message: 'The request body is not valid JSON.',
    });
    expect(body.error.message).toBe('The request body is not valid JSON.');
  });

  it('answers 413 payload_too_large for a body over 64 KiB and 415 for a body that is not JSON', async () => {
    const post = (body: string, type: string) =>
      fetch(url('pets.create'), { method: 'POST', headers: { ...auth, 'content-type': type }, body });
    const large = await post(JSON.stringify({ name: 'x'.repeat(70_000), categoryId: 1 }), 'application/json');
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { data: { error: { code: string } } } }).error.data.error.code).toBe(
      'payload_too_large'
    );
    const text = await post('name=Rex', 'text/plain');
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { data: { error: { code: string } } } }).error.data.error.code).toBe(
      'unsupported_media_type'
    );
  });

  it('replays pets.create for a repeated Idempotency-Key instead of adding a second animal', async () => {
    const post = (name: string) =>
      fetch(`${server.trpcUrl}/pets.create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'trpc-retry-1' },
        body: JSON.stringify({ name, categoryId: 5 }),
      });
    const first = await post('Once');
    const again = await post('Once');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    type Body = { result: { data: unknown } };
    const created = ((await first.json()) as Body).result.data;
    expect(((await again.json()) as Body).result.data).toEqual(created);
    const conflict = await post('Twice');
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { data: { error: { code: string } } } }).error.data.error.code).toBe(
      'idempotency_key_reused',
    );
  });

  it('answers 404 not_found for an animal that does not exist', async () => {
    const error = await failure(keyed().pets.get.query({ petId: 987_654 }));
    expect(error.data?.error).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('marks pets.get deprecated with Deprecation, Sunset and a successor Link', async () => {
    const pet = await keyed().pets.create.mutate({ name: 'Old', categoryId: 1 });
    const response = await fetch(url('pets.get', { petId: pet.id }), { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-21T00:00:00Z') / 1000}`);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.get('link')).toBe(`<${PUBLIC_BASE_URL}/pets>; rel="successor-version"`);
  });

  it('answers 410 gone on pets.get from the sunset on, with the deprecation headers', async () => {
    const pet = await keyed().pets.create.mutate({ name: 'Gone', categoryId: 1 });
    const saved = server.clock.at;
    server.clock.at = Date.parse('2030-12-05T00:00:00Z');
    try {
      const response = await fetch(url('pets.get', { petId: pet.id }), { headers: auth });
      expect(response.status).toBe(410);
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      const error = await failure(keyed().pets.get.query({ petId: pet.id }));
      expect(error.data?.error).toMatchObject({ code: 'gone', status: 410 });
      expect(error.data?.httpStatus).toBe(410);
    } finally {
      server.clock.at = saved;
    }
  });

  it('carries the rate-limit headers and answers 429 with Retry-After over the limit', async () => {
    const { key } = await server.store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 2, perDay: 100 } });
    const headers = { authorization: `Bearer ${key}` };
    const first = await fetch(url('pets.list', {}), { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(server.clock.at / 1000);
    await fetch(url('pets.list', {}), { headers });
    const refused = await fetch(url('pets.list', {}), { headers });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const error = await failure(server.client(key).pets.list.query({}));
    expect(error.data?.error).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('answers 404 not_found for an unknown procedure and still counts the request', async () => {
    const response = await fetch(url('pets.nothing', {}), { headers: auth });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
    const body = (await response.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe('not_found');
  });

  it('answers 405 method_not_allowed for a query sent as POST', async () => {
    const response = await fetch(url('pets.list'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const body = (await response.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe('method_not_allowed');
  });

  it.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'HEAD'])(
    'answers %s with 405 method_not_allowed, Allow: GET, POST, and a JSON body',
    async (method) => {
      const response = await rawRequest(method, '/pets.list?input=%7B%7D', auth);
      expect(response.status).toBe(405);
      expect(response.headers['allow']).toBe('GET, POST');
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      if (method !== 'HEAD') {
        const body = JSON.parse(response.body) as { error: { data: { error: ErrorBody } } };
        expect(body.error.data.error).toEqual(new PetStoreError('method_not_allowed', body.error.data.error.message).toBody());
        expect(body.error.data.error.code).toBe('method_not_allowed');
      }
    },
  );

  it('answers a method HTTP knows but tRPC does not (ACL) with 405, never a 5xx', async () => {
    const response = await rawRequest('ACL', '/pets.list', auth);
    expect(response.status).toBe(405);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers 404 for a path that names no procedure, batch or not', async () => {
    for (const path of ['', '/', '/nope', '/pets.nope,pets.gone?batch=1', '/%E0%A4%A', '/pets.list/extra']) {
      const response = await rawRequest('GET', path, auth);
      expect(response.status, path).toBe(404);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('labels the 415 body application/json', async () => {
    const response = await fetch(url('pets.create'), { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('hands a streaming batch (httpBatchStreamLink) to tRPC itself, with the same procedures and errors', async () => {
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchStreamLink({ url: server.trpcUrl, headers: auth })],
    });
    const pet = await client.pets.create.mutate({ name: 'Streamed', categoryId: 2 });
    const [read, missing] = await Promise.allSettled([
      client.pets.get.query({ petId: pet.id }),
      client.pets.get.query({ petId: 987_655 }),
    ]);
    expect(read.status === 'fulfilled' && read.value).toEqual(pet);
    expect(missing.status === 'rejected' && (missing.reason as TRPCClientError<AppRouter>).data?.error.code).toBe('not_found');
  });

  it('answers a streaming GET batch that names another content type itself, in JSON (tRPC would refuse it in plain text)', async () => {
    for (const type of ['application/octet-stream', 'multipart/form-data; boundary=x', 'text/plain']) {
      const answer = await rawRequest('GET', `/pets.list?batch=1&input=${encodeURIComponent('{"0":{"limit":1}}')}`, {
        ...auth,
        'content-type': type,
        'trpc-accept': 'application/jsonl',
      });
      expect(answer.headers['content-type'], type).toMatch(/^application\/json(;|$)/);
      expect(answer.status, type).toBeLessThan(500);
      expect(JSON.parse(answer.body), type).toEqual(expect.anything());
    }
  });

  it('answers each call of a batch on its own', async () => {
    const client = keyed(apiKey, { batch: true });
    const [list, missing] = await Promise.allSettled([
      client.pets.list.query({ limit: 1 }),
      client.pets.get.query({ petId: 987_654 }),
    ]);
    expect(list.status === 'fulfilled' && list.value).toHaveLength(1);
    expect(missing.status === 'rejected' && (missing.reason as TRPCClientError<AppRouter>).data?.error.code).toBe(
      'not_found'
    );
  });

  it('echoes the X-Request-Id a client sends and makes one up otherwise', async () => {
    const echoed = await fetch(url('pets.list', {}), { headers: { ...auth, 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await fetch(url('pets.list', {}), { headers: auth });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 503 unavailable once the database is gone, revealing nothing', async () => {
    const opened = await database.open();
    const store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable });
    const { key } = await store.apiKeys.create({ plan: 'free' });
    const answered: PetStoreError[] = [];
    const broken = createServer(createTrpcHandler({ store, onError: (error) => answered.push(error) }));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    await opened.close();
    try {
      const port = (broken.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/trpc/pets.list?input=%7B%7D`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const text = await response.text();
      const body = JSON.parse(text) as { error: { message: string; data: { error: ErrorBody } } };
      expect(response.status).toBe(503);
      expect(body.error.data.error).toEqual(new PetStoreError('unavailable').toBody());
      expect(body.error.data.error.status).toBe(response.status);
      expect(body.error.message).toBe(body.error.data.error.message);
      expect(text).not.toMatch(/stack|destroyed|kysely|pglite|ECONN|\.ts:/i);
      expect(answered.map((error) => error.code)).toEqual([body.error.data.error.code]);
      expect(answered[0]?.cause).toBeDefined();
    } finally {
      broken.closeAllConnections();
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});
