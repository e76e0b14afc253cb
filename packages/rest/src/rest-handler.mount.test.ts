import type { AddressInfo } from 'node:net';
import { createPetStore, type PetStore } from '@petstore/core';
import { listen, testDatabases } from '@petstore/testing';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestHandler } from './rest-handler.js';
import { expectError } from './testing/rest-server.js';

type Pet = { id: number; name: string; categoryId: number; status: string };

/** Creates two animals of a status no other test uses, then lists them one per page by following the Link header. */
async function roundTrip(base: string, auth: Record<string, string>, status: 'sold' | 'pending') {
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
    created.push(pet);
  }
  const first = await fetch(`${base}/pets?status=${status}&limit=1`, { headers: auth });
  expect(await first.json()).toEqual([created[0]]);
  const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
  expect(next?.startsWith(`${base}/pets?`)).toBe(true);
  const second = await fetch(next!, { headers: auth });
  expect(await second.json()).toEqual([created[1]]);
  expect(second.headers.get('link')).toBeNull();
  const get = await fetch(`${base}/pets/${created[0]!.id}`, { headers: auth });
  expect(get.headers.get('link')).toBe(`<${base}/pets>; rel="successor-version"`);
}

describe.each(testDatabases)('mounting the REST handler on $name', (database) => {
  let close: () => Promise<void>;
  let store: PetStore;
  let auth: Record<string, string>;
  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    store = createPetStore({ db: opened.db, clock: { now: () => Date.parse('2026-11-21T12:00:00Z') } });
    auth = { authorization: `Bearer ${(await store.apiKeys.create({ plan: 'free' })).key}` };
  });
  afterAll(() => close());

  it('works in Express under /petstore, with links that keep the mount: paths outside /v1 go on, unknown ones under it are its 404', async () => {
    const app = express();
    app.use('/petstore', createRestHandler({ store, basePath: '/petstore/v1' }));
    app.get('/petstore/elsewhere', (_req, res) => void res.send('express'));
    app.get('/petstore/v1/elsewhere', (_req, res) => void res.send('express under v1'));
    const server = await listen(app);
    try {
      await roundTrip(`${server.url}/petstore/v1`, auth, 'sold');
      expect(await (await fetch(`${server.url}/petstore/elsewhere`)).text()).toBe('express');
      // Under the API's own prefix every path is the API's: its JSON 404, counted, never the host's next().
      for (const path of ['/petstore/v1/elsewhere', '/petstore/v1/nowhere']) {
        const unknown = await fetch(`${server.url}${path}`);
        expect(unknown.status).toBe(404);
        expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await unknown.json()).toMatchObject({ code: 'not_found', status: 404 });
      }
      const docs = await fetch(`${server.url}/petstore/v1/docs`);
      expect(docs.url).toBe(`${server.url}/petstore/v1/docs/`);
      expect(docs.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('reads a body that express.json() already parsed', async () => {
    const app = express();
    app.use(express.json());
    app.use(createRestHandler({ store }));
    const server = await listen(app);
    try {
      const response = await fetch(`${server.url}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Parsed', categoryId: 1 }),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ name: 'Parsed', categoryId: 1, status: 'available' });
    } finally {
      await server.close();
    }
  });

  it('works in Fastify with the body left unread and the reply hijacked', async () => {
    const handler = createRestHandler({ store });
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const rest = (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      handler(request.raw, reply.raw);
    };
    app.all('/v1', rest);
    app.all('/v1/*', rest);
    app.get('/healthz', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    try {
      const base = `http://127.0.0.1:${port}/v1`;
      await roundTrip(base, auth, 'pending');
      await expectError(
        await fetch(`${base}/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'Rex' }),
        415,
        'unsupported_media_type',
      );
      await expectError(
        await fetch(`${base}/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{' }),
        400,
        'malformed_json',
      );
      const head = await fetch(`${base}/pets?limit=1`, { method: 'HEAD', headers: auth });
      expect(head.status).toBe(200);
      const options = await fetch(`${base}/pets`, { method: 'OPTIONS', headers: auth });
      await expectError(options, 405, 'method_not_allowed');
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });
});
