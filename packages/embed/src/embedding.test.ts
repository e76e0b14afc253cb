import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PetStoreError, type Pet } from '@petstore/core';
import { createRestHandler } from '@petstore/rest';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, openPetStore, type OpenPetStore } from './index.js';

const KEY = 'embedding-test-key-0123456789';

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const apiKeys = [{ key: KEY, plan: 'pro' as const }];
const targets = [
  { name: 'the embedded database', open: async () => ({ service: await openPetStore({ dataDir: 'memory://', apiKeys }), drop: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async open() {
            const scratch = await scratchPostgres();
            return { service: await openPetStore({ databaseUrl: scratch.url, apiKeys }), drop: scratch.drop };
          },
        },
      ]
    : []),
];

describe.each(targets)('embedding the pet store on $name', (target) => {
  let service: OpenPetStore;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ service, drop } = await target.open());
  });
  afterAll(async () => {
    await service.close();
    await drop();
  });

  it('calls the operations in-process with the same validation and errors, and no HTTP', async () => {
    const { data: pet } = await service.store.createPet({ name: 'Inline', categoryId: 8 }, { apiKey: KEY });
    expect((await service.store.getPet({ petId: pet.id }, { apiKey: KEY })).data).toEqual(pet);
    const failure = await service.store.createPet({ name: 'Bad', categoryId: '8' } as never, { apiKey: KEY }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PetStoreError);
    expect((failure as PetStoreError).toBody()).toEqual({
      code: 'invalid_request',
      message: 'Invalid value for: categoryId.',
      status: 400,
      details: [{ path: 'categoryId', message: expect.any(String) }],
    });
    const refused = await service.store.listPets({}, {}).catch((e: unknown) => e);
    expect((refused as PetStoreError).code).toBe('missing_api_key');
  });

  it('counts in-process calls against the same quota as HTTP', async () => {
    const before = await service.store.listPets({ limit: 1 }, { apiKey: KEY });
    const after = await service.store.listPets({ limit: 1 }, { apiKey: KEY });
    expect(after.meta.rateLimit?.[0]?.remaining).toBe(before.meta.rateLimit![0]!.remaining - 1);
  });

  it('mounts the whole HTTP surface in a plain node:http server', async () => {
    const server = createServer(createHttpHandler(service.store));
    const url = await listen(server);
    try {
      const created = await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Mounted', categoryId: 1 }),
      });
      expect(created.status).toBe(201);
      const pet = (await created.json()) as Pet;
      expect(created.headers.get('location')).toBe(`${url}/v1/pets/${pet.id}`);
      const viaTrpc = await fetch(`${url}/trpc/pets.get?input=${encodeURIComponent(JSON.stringify({ petId: pet.id }))}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(((await viaTrpc.json()) as { result: { data: Pet } }).result.data).toEqual(pet);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("names the version it is given in /healthz's body, and the release of @petstore/embed when given none", async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const [options, body] of [
      [{ version: '3.1.4' }, { status: 'ok', version: '3.1.4', checks: { database: 'ok' } }],
      [{}, { status: 'ok', version, checks: { database: 'ok' } }],
    ] as const) {
      const server = createServer(createHttpHandler(service.store, options));
      const url = await listen(server);
      try {
        const health = await fetch(`${url}/healthz`);
        expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('mounts the REST API in an Express app beside its own routes', async () => {
    const app = express();
    app.get('/hello', (_req, res) => {
      res.json({ hello: 'world' });
    });
    app.use('/petstore', createRestHandler({ store: service.store, basePath: '/petstore/v1' }));
    const server = createServer(app);
    const url = await listen(server);
    try {
      expect(await (await fetch(`${url}/hello`)).json()).toEqual({ hello: 'world' });
      const list = await fetch(`${url}/petstore/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(list.status).toBe(200);
      expect(list.headers.get('link')).toMatch(new RegExp(`^<${url}/petstore/v1/pets\\?limit=1&cursor=[^>]+>; rel="next"$`));
      const missing = await fetch(`${url}/petstore/v1/pets`);
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ code: 'missing_api_key', status: 401 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
