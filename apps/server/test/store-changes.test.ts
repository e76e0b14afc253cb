import { createClient, PreconditionFailedError } from '@petstore/client';
import { petStoreLinks } from '@petstore/client/trpc';
import { PetStoreError } from '@petstore/core';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { serverDatabases } from './hostile/databases.js';

// DECISIONS "The store changes": PATCH and DELETE, versions and ETags, 304 and 412, on REST, tRPC, the client and
// in-process, each against the real service on both databases.

const KEY = 'store-changes-key-0123456789';
const FREE = 'store-changes-free-0123456789';
const json = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };


/**
 * A running service with its keys: a pro one for most calls, a free one to spend and ban. Its clock stands still, so
 * the counts of a test stay in one minute window (on the wall clock, a minute that ends among them starts afresh).
 */
async function start(env: Record<string, string>, keys = `${KEY}:pro,${FREE}:free`) {
  const at = Date.now();
  return startServer(loadConfig({ ...env, PORT: '0', PETSTORE_API_KEYS: keys, PETSTORE_LOG_LEVEL: 'silent' }), { clock: { now: () => at } });
}

describe.each(serverDatabases)('changing the store on $name', (target) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  const api = (path: string) => `${running.url}/v1${path}`;
  const create = async (name = 'Rex') => {
    const response = await fetch(api('/pets'), { method: 'POST', headers: json, body: JSON.stringify({ name, categoryId: 1 }) });
    return { pet: (await response.json()) as { id: number; name: string; status: string }, etag: response.headers.get('etag')! };
  };
  const patch = (id: number, body: unknown, headers: Record<string, string> = {}) =>
    fetch(api(`/pets/${id}`), { method: 'PATCH', headers: { ...json, ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    const { env, drop: d } = await target.env();
    drop = d;
    running = await start(env);
  });
  afterAll(async () => {
    await running.close();
    await drop();
  });

  it('answers a created animal with a strong ETag naming its first version', async () => {
    const { pet, etag } = await create();
    expect(etag).toBe(`"${pet.id}.1"`);
  });

  it('changes an animal with PATCH, answering it with the ETag of its next version', async () => {
    const { pet } = await create('Before');
    const response = await patch(pet.id, { name: 'After', status: 'pending' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${pet.id}.2"`);
    expect(await response.json()).toEqual({ id: pet.id, name: 'After', categoryId: 1, status: 'pending' });
    const read = await fetch(api(`/pets/${pet.id}`), { headers: json });
    expect(read.headers.get('etag')).toBe(`"${pet.id}.2"`);
    expect(await read.json()).toEqual({ id: pet.id, name: 'After', categoryId: 1, status: 'pending' });
  });

  it.each([
    ['an empty object', {}],
    ['a null field', { name: null }],
    ['an unknown field', { name: 'x', weight: 4 }],
    ['an id in the body', { id: 9, name: 'x' }],
    ['a status out of the enum', { status: 'lost' }],
    ['null', null],
  ])('refuses a change with %s (400), changing nothing', async (_what, body) => {
    const { pet, etag } = await create();
    const response = await patch(pet.id, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_request');
    expect((await fetch(api(`/pets/${pet.id}`), { headers: json })).headers.get('etag')).toBe(etag);
  });

  it('answers 404 for a change or a delete of no animal', async () => {
    expect((await patch(987654, { name: 'Nobody' })).status).toBe(404);
    expect((await patch(987654, { name: 'Nobody' }, { 'if-match': '"987654.1"' })).status).toBe(404);
    expect((await fetch(api('/pets/987654'), { method: 'DELETE', headers: json })).status).toBe(404);
  });

  it('refuses a change whose If-Match names another version with 412 and the current ETag, changing nothing', async () => {
    const { pet, etag } = await create('Kept');
    expect((await patch(pet.id, { name: 'First' }, { 'if-match': etag })).status).toBe(200);
    const stale = await patch(pet.id, { name: 'Lost update' }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(`"${pet.id}.2"`);
    expect(await stale.json()).toEqual({ code: 'precondition_failed', message: expect.any(String), status: 412 });
    // A weak tag never matches by the strong comparison; another animal's tag names none of this one's versions.
    expect((await patch(pet.id, { name: 'Weak' }, { 'if-match': `W/"${pet.id}.2"` })).status).toBe(412);
    expect((await patch(pet.id, { name: 'Other' }, { 'if-match': `"${pet.id + 1}.2"` })).status).toBe(412);
    expect((await patch(pet.id, { name: 'Garbled' }, { 'if-match': 'not a tag' })).status).toBe(412);
    const read = (await (await fetch(api(`/pets/${pet.id}`), { headers: json })).json()) as { name: string };
    expect(read.name).toBe('First');
    // Any of a list matches, and so does `*` while the animal exists.
    expect((await patch(pet.id, { name: 'Listed' }, { 'if-match': `"${pet.id}.1", "${pet.id}.2"` })).status).toBe(200);
    expect((await patch(pet.id, { name: 'Star' }, { 'if-match': '*' })).headers.get('etag')).toBe(`"${pet.id}.4"`);
  });

  it('deletes with 204 and no body: gone from get and every list at once, 404 again, its id never reused', async () => {
    const { pet, etag } = await create('Gone');
    const listed = async () => ((await (await fetch(api('/pets?limit=100'), { headers: json })).json()) as { id: number }[]).map((p) => p.id);
    expect(await listed()).toContain(pet.id);
    const stale = await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers: { ...json, 'if-match': `"${pet.id}.9"` } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(etag);
    const deleted = await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers: { ...json, 'if-match': etag } });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(deleted.headers.get('etag')).toBeNull();
    expect((await fetch(api(`/pets/${pet.id}`), { headers: json })).status).toBe(404);
    expect(await listed()).not.toContain(pet.id);
    expect((await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers: json })).status).toBe(404);
    expect((await create('Next')).pet.id).toBeGreaterThan(pet.id);
  });

  it('answers a matching If-None-Match with 304, no body, the ETag and the rate-limit headers, counted against no window', async () => {
    await create('Listed');
    const first = await fetch(api('/pets?limit=5'), { headers: json });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const remaining = first.headers.get('x-ratelimit-remaining');
    for (let i = 0; i < 1000; i++) {
      const again = await fetch(api('/pets?limit=5'), { headers: { ...json, 'if-none-match': etag } });
      expect(again.status).toBe(304);
      if (i % 250 === 0) {
        expect(await again.text()).toBe('');
        expect(again.headers.get('etag')).toBe(etag);
        expect(again.headers.get('x-ratelimit-limit')).toBe('300');
      }
      expect(again.headers.get('x-ratelimit-remaining')).toBe(remaining);
    }
    // Another tag, a weak form of this one, or `*`: the weak comparison of RFC 9110.
    expect((await fetch(api('/pets?limit=5'), { headers: { ...json, 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
    const other = await fetch(api('/pets?limit=5'), { headers: { ...json, 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(Number(remaining) - 1));
  });

  it('gives a list page a new ETag once one of its animals changes', async () => {
    const { pet } = await create('Page');
    const before = await fetch(api('/pets?limit=100'), { headers: json });
    const etag = before.headers.get('etag')!;
    await patch(pet.id, { status: 'sold' });
    const after = await fetch(api('/pets?limit=100'), { headers: { ...json, 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('answers getPet 304 with its deprecation headers, and 200 once the animal changed', async () => {
    const { pet, etag } = await create('Single');
    const same = await fetch(api(`/pets/${pet.id}`), { headers: { ...json, 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(same.headers.get('deprecation')).toMatch(/^@\d+$/);
    await patch(pet.id, { name: 'Changed' });
    const changed = await fetch(api(`/pets/${pet.id}`), { headers: { ...json, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe(`"${pet.id}.2"`);
  });

  it('still refuses a conditional GET without a valid key, or from a key over its limit or banned', async () => {
    const etag = (await fetch(api('/pets'), { headers: json })).headers.get('etag')!;
    expect((await fetch(api('/pets'), { headers: { 'if-none-match': etag } })).status).toBe(401);
    const free = { authorization: `Bearer ${FREE}`, 'if-none-match': etag };
    for (let i = 0; i < 60; i++) expect((await fetch(api('/pets'), { headers: { authorization: `Bearer ${FREE}` } })).status).toBe(200);
    const spent = await fetch(api('/pets'), { headers: free });
    expect(spent.status).toBe(429);
    expect(((await spent.json()) as { code: string }).code).toBe('rate_limited');
    for (let i = 0; i < 12; i++) await fetch(api('/pets'), { headers: { authorization: `Bearer ${FREE}` } });
    const banned = await fetch(api('/pets'), { headers: free });
    expect(banned.status).toBe(429);
    expect(((await banned.json()) as { code: string }).code).toBe('api_key_banned');
  });

  it('replays a PATCH sent again with its Idempotency-Key, ETag included, changing the animal once', async () => {
    const { pet, etag } = await create('Once');
    const headers = { 'idempotency-key': `change-${pet.id}`, 'if-match': etag };
    const first = await patch(pet.id, { name: 'Twice?' }, headers);
    const again = await patch(pet.id, { name: 'Twice?' }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await again.json()).toEqual(await first.json());
    expect((await fetch(api(`/pets/${pet.id}`), { headers: json })).headers.get('etag')).toBe(`"${pet.id}.2"`);
    // The same key with another condition is another request.
    expect((await patch(pet.id, { name: 'Twice?' }, { ...headers, 'if-match': '*' })).status).toBe(409);
    const removal = { ...json, 'idempotency-key': `delete-${pet.id}` };
    expect((await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers: removal })).status).toBe(204);
    const replayed = await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers: removal });
    expect(replayed.status).toBe(204);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('lets a browser read the ETag and send the conditions (CORS)', async () => {
    const preflight = await fetch(api('/pets/1'), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'if-match' },
    });
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/If-Match/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/If-None-Match/);
    const answer = await fetch(api('/pets'), { headers: { ...json, origin: 'https://app.example.com' } });
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/);
  });

  it('changes and deletes over tRPC with ifMatch as a call option, a 412 carrying the current ETag', async () => {
    const trpc = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${running.url}/trpc`, apiKey: KEY }) });
    const { pet, etag } = await create('Trpc');
    const changed = await trpc.pets.update.mutate({ petId: pet.id, status: 'sold' }, { context: { ifMatch: etag } });
    expect(changed).toEqual({ ...pet, status: 'sold' });
    const stale = await trpc.pets.update.mutate({ petId: pet.id, name: 'Lost' }, { context: { ifMatch: etag } }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(TRPCClientError);
    const data = (stale as TRPCClientError<AppRouter>).data as { httpStatus: number; code: string; error: { code: string } };
    expect([data.httpStatus, data.code, data.error.code]).toEqual([412, 'PRECONDITION_FAILED', 'precondition_failed']);
    expect(await trpc.pets.delete.mutate({ petId: pet.id }, { context: { ifMatch: `"${pet.id}.2"` } })).toBeNull();
    await expect(trpc.pets.get.query({ petId: pet.id })).rejects.toMatchObject({ data: { httpStatus: 404 } });
    // The answer of a single call carries its ETag; a batch's do not share one.
    const single = await fetch(`${running.url}/trpc/pets.get?input=${encodeURIComponent(JSON.stringify({ petId: (await create()).pet.id }))}`, { headers: json });
    expect(single.headers.get('etag')).toMatch(/^"\d+\.1"$/);
    const batch = await fetch(`${running.url}/trpc/pets.list,pets.list?batch=1&input=${encodeURIComponent('{"0":{},"1":{"limit":1}}')}`, { headers: json });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('etag')).toBeNull();
  });

  it('changes, revalidates and deletes through @petstore/client, a 412 as a PreconditionFailedError', async () => {
    const petstore = createClient({ baseUrl: `${running.url}/v1`, apiKey: KEY, onDeprecation: false });
    const created = await petstore.withETag('createPet', { name: 'Client', categoryId: 2 });
    if (created.notModified) return expect.unreachable('a create is never 304');
    const id = created.data.id;
    const read = await petstore.withETag('getPet', { petId: id });
    expect(read.etag).toBe(created.etag);
    const same = await petstore.withETag('getPet', { petId: id }, { ifNoneMatch: read.etag! });
    expect(same).toEqual({ notModified: true, data: undefined, etag: read.etag });
    expect(await petstore.updatePet({ petId: id, name: 'Client 2' }, { ifMatch: read.etag! })).toMatchObject({ name: 'Client 2' });
    const stale = await petstore.updatePet({ petId: id, name: 'Lost' }, { ifMatch: read.etag! }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed', etag: `"${id}.2"` });
    const list = await petstore.withETag('listPets', { limit: 3 });
    expect((await petstore.withETag('listPets', { limit: 3 }, { ifNoneMatch: list.etag! })).notModified).toBe(true);
    expect(await petstore.deletePet({ petId: id }, { ifMatch: `"${id}.2"` })).toBeNull();
  });

  it('changes in-process with ifMatch in the call context and the ETag in the outcome meta', async () => {
    const { store } = running.service;
    const { pet } = await create('In-process');
    const changed = await store.updatePet({ petId: pet.id, categoryId: 7 }, { apiKey: KEY, ifMatch: `"${pet.id}.1"` });
    expect(changed.data.categoryId).toBe(7);
    expect(changed.meta.etag).toBe(`"${pet.id}.2"`);
    const stale = await store.deletePet({ petId: pet.id }, { apiKey: KEY, ifMatch: `"${pet.id}.1"` }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(PetStoreError);
    expect((stale as PetStoreError).meta.etag).toBe(`"${pet.id}.2"`);
    expect((await store.getPet({ petId: pet.id }, { apiKey: KEY })).meta.etag).toBe(`"${pet.id}.2"`);
  });

  it('keeps the new operations and the 304s in the usage ledger under their own names, as served', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const before = await running.service.store.usage({});
    const count = (rows: typeof before, operationId: string) =>
      rows.filter((row) => row.operationId === operationId).reduce((sum, row) => sum + row.served, 0);
    const { pet } = await create('Ledger');
    await patch(pet.id, { name: 'Ledger 2' });
    const etag = (await fetch(api('/pets'), { headers })).headers.get('etag')!;
    expect((await fetch(api('/pets'), { headers: { ...headers, 'if-none-match': etag } })).status).toBe(304);
    await fetch(api(`/pets/${pet.id}`), { method: 'DELETE', headers });
    const after = await running.service.store.usage({});
    expect(count(after, 'updatePet') - count(before, 'updatePet')).toBe(1);
    expect(count(after, 'deletePet') - count(before, 'deletePet')).toBe(1);
    expect(count(after, 'listPets') - count(before, 'listPets')).toBe(2);
  });
});

describe.each(serverDatabases)('concurrent changes with one If-Match on $name', (target) => {
  let instances: RunningServer[];
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const { env, drop: d } = await target.env();
    drop = d;
    // Two instances on one PostgreSQL database; the embedded database has one process per folder.
    // The races need more requests than a pro key's minute allows.
    const keys = `${KEY}:enterprise:100000:1000000`;
    instances = target.name === 'PostgreSQL' ? [await start(env, keys), await start(env, keys)] : [await start(env, keys)];
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await drop();
  });

  const race = async (method: 'PATCH' | 'DELETE', id: number, etag: string) =>
    Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${instances[i % instances.length]!.url}/v1/pets/${id}`, {
          method,
          headers: { ...json, 'if-match': etag },
          body: method === 'PATCH' ? JSON.stringify({ name: `Racer ${i}` }) : undefined,
        }).then(async (response) => ({ status: response.status, etag: response.headers.get('etag'), body: await response.text() })),
      ),
    );

  it('lets exactly one of 50 PATCHes through, across every instance; the 49 others get 412 and the winner\'s ETag', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await fetch(`${instances[0]!.url}/v1/pets`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Contested', categoryId: 1 }) });
      const { id } = (await created.json()) as { id: number };
      const answers = await race('PATCH', id, created.headers.get('etag')!);
      const won = answers.filter((answer) => answer.status === 200);
      expect(won).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 412)).toHaveLength(49);
      expect(new Set(answers.map((answer) => answer.etag))).toEqual(new Set([`"${id}.2"`]));
      const stored = await fetch(`${instances.at(-1)!.url}/v1/pets/${id}`, { headers: json });
      expect(await stored.text()).toBe(won[0]!.body);
    }
  });

  it('deletes once of 50 DELETEs with one If-Match; the others find nothing to delete', async () => {
    const created = await fetch(`${instances[0]!.url}/v1/pets`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Doomed', categoryId: 1 }) });
    const { id } = (await created.json()) as { id: number };
    const answers = await race('DELETE', id, created.headers.get('etag')!);
    expect(answers.filter((answer) => answer.status === 204)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 404 || answer.status === 412)).toHaveLength(49);
  });
});
