import { openPetStore } from '@petstore/embed';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';

// Names with controls, format characters or separators (U+0085, U+202E, U+2028, U+2029) or nothing visible (only
// U+200B, only U+3164) read one way and display another; they are refused on every surface.
const KEY = 'hostile-names-key-000001';
const REFUSED = ['Rex\u0085', 'Rex\u202Egnp.exe', '\uFEFFRex', 'Rex\u2028Max', 'Rex\u2029', '\u200B', '\u3164', ' \u00A0 '];
const ACCEPTED = ['Rex', 'Zoë', '🐶'.repeat(255), 'Anna Maria', 'ชื่อ', '🐈\u200D⬛ Midnight', '\u0645\u06CC\u200C\u0634\u0648'];

describe('names that hide what they say', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000` });
  });
  afterAll(() => server.stop());

  it('are 400 on REST, naming the field, while others are created', async () => {
    const create = (name: string) =>
      fetch(`${server.url}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name, categoryId: 1 }) });
    for (const name of REFUSED) {
      const response = await create(name);
      const body = (await response.json()) as { code: string; details: { path: string }[] };
      expect({ name, status: response.status, code: body.code, paths: body.details.map((d) => d.path) }).toEqual({ name, status: 400, code: 'invalid_request', paths: ['name'] });
    }
    for (const name of ACCEPTED) expect((await create(name)).status).toBe(201);
  });

  it('are BAD_REQUEST through the tRPC client', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${KEY}` } })] });
    for (const name of REFUSED) {
      const error = await client.pets.create.mutate({ name, categoryId: 1 }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<AppRouter>).data?.httpStatus).toBe(400);
    }
    expect((await client.pets.create.mutate({ name: 'Zoë', categoryId: 1 })).name).toBe('Zoë');
  });

  it('are refused in-process by an embedded store', async () => {
    const opened = await openPetStore({ dataDir: 'memory://', apiKeys: [{ key: KEY, plan: 'pro' }] });
    try {
      for (const name of REFUSED) {
        await expect(opened.store.createPet({ name, categoryId: 1 }, { apiKey: KEY })).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
      }
      expect((await opened.store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey: KEY })).data.name).toBe('Rex');
    } finally {
      await opened.close();
    }
  });
});
