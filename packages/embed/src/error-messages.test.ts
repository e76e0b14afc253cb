import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore, PetStoreError, type ErrorDetail, type PetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from './create-http-handler.js';

const MAX = '9007199254740991';
/** Each bad value, the field it fails and the one detail every caller must get for it. */
const cases = [
  { operation: 'listPets', input: { limit: 0 }, query: 'limit=0', detail: { path: 'limit', message: 'must be at least 1' } },
  { operation: 'listPets', input: { limit: 101 }, query: 'limit=101', detail: { path: 'limit', message: 'must be at most 100' } },
  { operation: 'listPets', input: { limit: 1.5 }, query: 'limit=1.5', detail: { path: 'limit', message: 'must be an integer' } },
  { operation: 'getPet', input: { petId: 0 }, path: '/pets/0', detail: { path: 'petId', message: 'must be at least 1' } },
  { operation: 'createPet', input: { name: 'Rex', categoryId: 0 }, detail: { path: 'categoryId', message: 'must be at least 1' } },
  { operation: 'createPet', input: { name: 'Rex', categoryId: 2 ** 53 + 1 }, body: `{"name":"Rex","categoryId":9007199254740993}`, detail: { path: 'categoryId', message: `must be at most ${MAX}` } },
  { operation: 'createPet', input: { name: 'Rex', categoryId: '1' }, detail: { path: 'categoryId', message: 'must be an integer' } },
] as const;

describe.each(testDatabases)('validation messages on $name', (database) => {
  let store: PetStore;
  let apiKey: string;
  let server: Server;
  let root: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable });
    apiKey = (await store.apiKeys.create({ plan: 'pro' })).key;
    server = createServer(createHttpHandler(store));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await close();
  });

  it.each(cases)('$operation with $input: one detail, "$detail.message", in-process, on REST and on tRPC', async (c) => {
    const expected: ErrorDetail[] = [c.detail];
    const inProcess = await store.call(c.operation, () => c.input, { apiKey }).catch((error: unknown) => error);
    expect(inProcess).toBeInstanceOf(PetStoreError);
    expect((inProcess as PetStoreError).details).toEqual(expected);

    const auth = { authorization: `Bearer ${apiKey}` };
    const rest =
      c.operation === 'createPet'
        ? await fetch(`${root}/v1/pets`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: 'body' in c ? c.body : JSON.stringify(c.input),
          })
        : await fetch(`${root}/v1${'path' in c ? c.path : `/pets?${c.query}`}`, { headers: auth });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { details: ErrorDetail[] }).details).toEqual(expected);

    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${root}/trpc`, headers: auth })] });
    const procedure = { listPets: client.pets.list.query, getPet: client.pets.get.query, createPet: client.pets.create.mutate }[c.operation];
    const failure = await (procedure as (input: unknown) => Promise<unknown>)(c.input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect((failure as TRPCClientError<AppRouter>).data?.error?.details).toEqual(expected);
  });
});
