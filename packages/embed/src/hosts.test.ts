import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createPetStore, createQuota, encodeCursor, type ClosableQuota, type PetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedVersion } from './version.js';
import { createFastifyPlugin } from './create-fastify-plugin.js';
import { createFetchHandler } from './create-fetch-handler.js';
import { createHttpHandler } from './create-http-handler.js';

type Pet = { id: number; name: string; categoryId: number; status: string };

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * What every host must get right under its prefix: REST list, create (Location), the next-page Link, get with its
 * deprecation headers and successor link, errors in the Error body, and tRPC with end-to-end types.
 */
async function checkSurface(root: string, apiKey: string, status: 'sold' | 'pending') {
  const auth = { authorization: `Bearer ${apiKey}` };
  const base = `${root}/v1`;
  const created: Pet[] = [];
  for (const name of ['Rex', 'Bo']) {
    const response = await fetch(`${base}/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 7, status }),
    });
    expect(response.status).toBe(201);
    const pet = (await response.json()) as Pet;
    expect(response.headers.get('location')).toBe(`${base}/pets/${pet.id}`);
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    created.push(pet);
  }
  const after = encodeCursor(created[0]!.id - 1);
  const first = await fetch(`${base}/pets?status=${status}&limit=1&cursor=${after}`, { headers: auth });
  expect(await first.json()).toEqual([created[0]]);
  const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
  expect(next).toBe(`${base}/pets?status=${status}&limit=1&cursor=${encodeCursor(created[0]!.id)}`);
  expect(await (await fetch(next!, { headers: auth })).json()).toEqual([created[1]]);
  const get = await fetch(`${base}/pets/${created[0]!.id}`, { headers: auth });
  expect(get.status).toBe(200);
  expect(get.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(get.headers.get('link')).toBe(`<${base}/pets>; rel="successor-version"`);
  const missing = await fetch(`${base}/pets`, { headers: {} });
  expect(missing.status).toBe(401);
  expect(await missing.json()).toMatchObject({ code: 'missing_api_key', status: 401 });
  const document = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: { url: string }[] };
  expect(document.servers[0]!.url).toBe(base);

  const headers = () => auth;
  for (const link of [httpLink({ url: `${root}/trpc`, headers }), httpBatchLink({ url: `${root}/trpc`, headers })]) {
    const client = createTRPCClient<AppRouter>({ links: [link] });
    const pets = await client.pets.list.query({ status, limit: 2, cursor: after });
    expect(pets.map((pet) => pet.id)).toEqual(created.map((pet) => pet.id));
    const error = await client.pets.get.query({ petId: 999_999_999 }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 404, error: { code: 'not_found' } });
  }
}

describe.each(testDatabases)('hosts mounting the store under /petstore on $name', (database) => {
  let store: PetStore;
  let apiKey: string;
  let quota: ClosableQuota;
  let closeDatabase: () => Promise<void>;
  beforeAll(async () => {
    const opened = await database.open();
    closeDatabase = opened.close;
    quota = createQuota({ store: 'memory' });
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, quota });
    apiKey = (await store.apiKeys.create({ plan: 'pro' })).key;
  });
  afterAll(async () => {
    await quota.close();
    await closeDatabase();
  });

  it('works in Express 5: unknown paths under /v1 and /trpc are the API\'s JSON 404, other paths reach the host\'s next handlers', async () => {
    const app = express();
    app.get('/hello', (_req, res) => void res.json({ host: 'express' }));
    app.use('/petstore', createHttpHandler(store, { basePath: '/petstore' }));
    app.get('/petstore/extra', (_req, res) => void res.json({ host: 'extra' }));
    app.use((_req: express.Request, res: express.Response) => void res.status(404).json({ host: 'not found' }));
    const server = createServer(app);
    const root = await listening(server);
    try {
      await checkSurface(`${root}/petstore`, apiKey, 'sold');
      expect(await (await fetch(`${root}/hello`)).json()).toEqual({ host: 'express' });
      expect(await (await fetch(`${root}/petstore/extra`)).json()).toEqual({ host: 'extra' });
      const elsewhere = await fetch(`${root}/petstore/other`);
      expect({ status: elsewhere.status, body: await elsewhere.json() }).toEqual({ status: 404, body: { host: 'not found' } });
      for (const path of ['/petstore/v1/no-such-thing', '/petstore/v1/orders', '/petstore/trpc/pets.nothing']) {
        const before = await fetch(`${root}/petstore/v1/pets?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } });
        const remaining = Number(before.headers.get('x-ratelimit-remaining'));
        const unknown = await fetch(`${root}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(unknown.status).toBe(404);
        expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
        // Counted against the key, as everywhere else.
        expect(Number(unknown.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
        const body = (await unknown.json()) as { code?: string; error?: { data?: { code?: string } } };
        if (path.startsWith('/petstore/v1')) expect(body).toMatchObject({ code: 'not_found', status: 404 });
        else expect(body.error?.data?.code).toBe('NOT_FOUND');
      }
      const anonymous = await fetch(`${root}/petstore/v1/no-such-thing`);
      expect(anonymous.status).toBe(404);
      expect(anonymous.headers.get('x-ratelimit-limit')).toBe('60');
      expect(await (await fetch(`${root}/petstore/healthz`)).json()).toEqual({ status: 'ok', version: embedVersion, checks: { database: 'ok' } });
    } finally {
      await close(server);
    }
  });

  it('fails loudly in Express when the handler is mounted without its basePath, instead of sending every path to the host\'s 404', async () => {
    const app = express();
    app.use('/petstore', createHttpHandler(store));
    const errors: unknown[] = [];
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      errors.push(error);
      res.status(500).json({ host: 'error' });
    });
    const server = createServer(app);
    const root = await listening(server);
    try {
      const answer = await fetch(`${root}/petstore/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 500, body: { host: 'error' } });
      expect(String(errors[0])).toContain("give createHttpHandler(store, { basePath: '/petstore' })");
    } finally {
      await close(server);
    }
  });

  it('works in Fastify 5 as a plugin under a prefix, with the host\'s own JSON routes still parsing bodies', async () => {
    const app = Fastify();
    app.post('/echo', async (request) => ({ echoed: request.body }));
    await app.register(createFastifyPlugin(store), { prefix: '/petstore' });
    const root = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await checkSurface(`${root}/petstore`, apiKey, 'pending');
      const echo = await fetch(`${root}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(await echo.json()).toEqual({ echoed: { a: 1 } });
      const unknown = await fetch(`${root}/petstore/v1/no-such-thing`);
      expect({ status: unknown.status, body: await unknown.json() }).toMatchObject({ status: 404, body: { code: 'not_found' } });
    } finally {
      await app.close();
    }
  });

  it('fails loudly in Fastify\'s naive glue, where Fastify has read the body: a warning on stderr besides the 500', async () => {
    const app = Fastify();
    const handler = createHttpHandler(store, { basePath: '/petstore' });
    app.all('/petstore/*', (request, reply) => handler(request.raw, reply.raw));
    const root = await app.listen({ port: 0, host: '127.0.0.1' });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const answer = await fetch(`${root}/petstore/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      });
      expect(answer.status).toBe(500);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => (warning as Error & { code?: string }).code)).toContain('PETSTORE_BODY_CONSUMED');
      expect(warnings.find((warning) => (warning as Error & { code?: string }).code === 'PETSTORE_BODY_CONSUMED')?.message).toContain(
        'createFastifyPlugin',
      );
    } finally {
      process.off('warning', onWarning);
      await app.close();
    }
  });

  it('works in Hono on @hono/node-server through the Fetch handler, beside the host\'s own routes, given the client\'s address', async () => {
    const handler = createFetchHandler(store, { basePath: '/petstore' });
    const app = new Hono();
    app.get('/hello', (c) => c.json({ host: 'hono' }));
    app.all('/petstore/*', (c) => handler(c.req.raw, { address: getConnInfo(c).remote.address }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => server.once('listening', resolve));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await checkSurface(`${root}/petstore`, apiKey, 'sold');
      expect(await (await fetch(`${root}/hello`)).json()).toEqual({ host: 'hono' });
    } finally {
      await close(server);
    }
  });

  it('works under Hono\'s app.mount when the request is kept whole (replaceRequest: false): routes and links keep the prefix', async () => {
    const handler = createFetchHandler(store, { basePath: '/petstore' });
    const app = new Hono();
    app.mount('/petstore', handler, {
      replaceRequest: false,
      optionHandler: (c) => ({ address: getConnInfo(c).remote.address }),
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => server.once('listening', resolve));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await checkSurface(`${root}/petstore`, apiKey, 'pending');
    } finally {
      await close(server);
    }
  });

  it('works under Hono\'s app.mount as written, which cuts the prefix off: routes and links keep the basePath, and the socket\'s address counts', async () => {
    const app = new Hono();
    app.mount('/naive', createFetchHandler(store, { basePath: '/naive' }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => server.once('listening', resolve));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await checkSurface(`${root}/naive`, apiKey, 'sold');
      expect((await fetch(`${root}/naive/healthz`)).status).toBe(200);
      expect((await fetch(`${root}/naive/elsewhere`)).status).toBe(404);
    } finally {
      await close(server);
    }
  });

  it('fails loudly under Hono\'s app.mount without a basePath, naming the basePath to give, instead of links without the prefix', async () => {
    const app = new Hono();
    const errors: unknown[] = [];
    app.onError((error, c) => {
      errors.push(error);
      return c.json({ host: 'error' }, 500);
    });
    app.mount('/naive', createFetchHandler(store));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => server.once('listening', resolve));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const answer = await fetch(`${root}/naive/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 500, body: { host: 'error' } });
      expect(String(errors[0])).toContain("createFetchHandler(store, { basePath: '/naive' })");
    } finally {
      await close(server);
    }
  });

  it('refuses, when made, a publicUrl without /v1 or without the basePath, naming the option and the address to give', () => {
    expect(() => createHttpHandler(store, { publicUrl: 'https://api.example.com' })).toThrow(
      /publicUrl "https:\/\/api\.example\.com" must end in the API's version segment \/v1.*give publicUrl: 'https:\/\/api\.example\.com\/v1'/,
    );
    expect(() => createFetchHandler(store, { publicUrl: 'https://api.example.com/v1', basePath: '/petstore' })).toThrow(
      /publicUrl "https:\/\/api\.example\.com\/v1" leaves out basePath "\/petstore".*Give publicUrl: 'https:\/\/api\.example\.com\/petstore\/v1'/,
    );
    expect(() => createHttpHandler(store, { stagingUrl: 'staging.example.com/v1' })).toThrow(/stagingUrl "staging\.example\.com\/v1" is not an absolute URL/);
    expect(() => createHttpHandler(store, { publicUrl: 'https://api.example.com/petstore/v1/', basePath: '/petstore' })).not.toThrow();
  });

  it('falls through to Fastify\'s own not-found handler for other paths under the prefix, and names each request by request.id in its answer and request.log', async () => {
    const lines: { reqId?: unknown; msg?: string; route?: string; status?: number }[] = [];
    const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
    const app = Fastify({ logger: { level: 'info', stream }, genReqId: () => `host-${lines.length}-${Math.random().toString(36).slice(2, 8)}` });
    app.setNotFoundHandler((_request, reply) => void reply.code(404).send({ host: 'not found' }));
    await app.register(createFastifyPlugin(store), { prefix: '/petstore' });
    const root = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const path of ['/petstore/elsewhere', '/petstore', '/petstore/healthz/deeper']) {
        const answer = await fetch(`${root}${path}`);
        expect({ path, status: answer.status, body: await answer.json() }).toEqual({ path, status: 404, body: { host: 'not found' } });
      }
      const api = await fetch(`${root}/petstore/v1/no-such-thing`);
      expect({ status: api.status, body: await api.json() }).toMatchObject({ status: 404, body: { code: 'not_found' } });
      const listed = await fetch(`${root}/petstore/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(listed.status).toBe(200);
      const id = listed.headers.get('x-request-id');
      expect(id).toMatch(/^host-/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const ours = lines.filter((line) => line.msg === 'request' && line.route === '/petstore/v1/pets');
      expect(ours).toEqual([expect.objectContaining({ reqId: id, status: 200 })]);
      expect(lines.filter((line) => line.reqId === id).every((line) => typeof line.reqId === 'string')).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('answers a Next.js-style route handler given a Request, reading a streamed body without Content-Length', async () => {
    const handler = createFetchHandler(store, { basePath: '/api/petstore' });
    const POST = (request: Request) => handler(request);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"Streamed",'));
        controller.enqueue(new TextEncoder().encode('"categoryId":3}'));
        controller.close();
      },
    });
    const response = await POST(
      new Request('https://app.example.com/api/petstore/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(201);
    const pet = (await response.json()) as Pet;
    expect(pet).toMatchObject({ name: 'Streamed', categoryId: 3, status: 'available' });
    expect(response.headers.get('location')).toBe(`https://app.example.com/api/petstore/v1/pets/${pet.id}`);
    const outside = await handler(new Request('https://app.example.com/elsewhere'));
    expect(outside.status).toBe(404);
  });
});
