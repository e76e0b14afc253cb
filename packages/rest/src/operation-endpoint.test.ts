import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, failingFields, startRestServer, type RestServer } from './testing/rest-server.js';

type Pet = { id: number; name: string; categoryId: number; status: string };

describe.each(testDatabases)('the REST operations on $name', (database) => {
  let api: RestServer;
  beforeAll(async () => {
    api = await startRestServer(database);
  });
  afterAll(() => api.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.base}/pets`, {
      method: 'POST',
      headers: { ...api.auth, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (path: string, headers: Record<string, string> = api.auth) => fetch(`${api.base}${path}`, { headers });
  const create = async (pet: Record<string, unknown>) => {
    const response = await post(pet);
    expect(response.status).toBe(201);
    return (await response.json()) as Pet;
  };

  describe('POST /pets', () => {
    it('answers 201 with the created animal as JSON and a Location that fetches it', async () => {
      const response = await post({ name: 'Rex', categoryId: 3, status: 'pending' });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const pet = (await response.json()) as Pet;
      expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
      expect(response.headers.get('location')).toBe(`${api.base}/pets/${pet.id}`);
      const read = await get(`/pets/${pet.id}`);
      expect(await read.json()).toEqual(pet);
    });

    it('gives an animal created without a status the status available', async () => {
      expect((await create({ name: 'Bo', categoryId: 1 })).status).toBe('available');
    });

    it('rejects loose types and unknown fields with 400 invalid_request naming each field', async () => {
      expect(await failingFields(await post({ name: null, categoryId: '5', id: 1 }))).toEqual(['categoryId', 'id', 'name']);
      expect(await failingFields(await post({ name: 'Rex', categoryId: 1.5 }))).toEqual(['categoryId']);
      expect(await failingFields(await post({ name: 'Rex', categoryId: 1, status: 'lost' }))).toEqual(['status']);
      expect(await failingFields(await post({ categoryId: 1 }))).toEqual(['name']);
    });

    it.each([
      ['empty', ''],
      ['white space only', ' \u00a0 '],
      ['holding a control character', 'Re\u0000x'],
      ['holding a tab', 'Re\tx'],
      ['of 256 characters', 'x'.repeat(256)],
    ])('rejects a name %s with 400 invalid_request', async (_label, name) => {
      expect(await failingFields(await post({ name, categoryId: 1 }))).toEqual(['name']);
    });

    it.each([
      ['255 characters', 'x'.repeat(255)],
      ['255 emoji', '🐕'.repeat(255)],
      ['surrounding white space and emoji', '  Fluffy 🐈 the Ⅲ  '],
    ])('accepts a name of %s and stores it exactly', async (_label, name) => {
      const pet = await create({ name, categoryId: 1 });
      expect(pet.name).toBe(name);
      expect(((await (await get(`/pets/${pet.id}`)).json()) as Pet).name).toBe(name);
    });

    it('accepts categoryId up to 2^53-1 and rejects 0 and 2^53', async () => {
      expect(await failingFields(await post({ name: 'Rex', categoryId: 0 }))).toEqual(['categoryId']);
      expect(await failingFields(await post('{"name":"Rex","categoryId":9007199254740992}'))).toEqual(['categoryId']);
      const pet = await create({ name: 'Rex', categoryId: 9007199254740991 });
      expect(pet.categoryId).toBe(9007199254740991);
    });
  });

  describe('Idempotency-Key on POST /pets', () => {
    it('replays the first response for a repeat with the same key and body, without a second animal', async () => {
      const headers = { 'idempotency-key': `order-${Math.random().toString(36).slice(2)}` };
      const first = await post({ name: 'Once', categoryId: 5 }, headers);
      const again = await post({ name: 'Once', categoryId: 5 }, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(await again.json()).toEqual(await first.json());
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
    });

    it('answers 409 idempotency_key_reused for the same key with another body', async () => {
      const headers = { 'idempotency-key': `order-${Math.random().toString(36).slice(2)}` };
      expect((await post({ name: 'A', categoryId: 5 }, headers)).status).toBe(201);
      await expectError(await post({ name: 'B', categoryId: 5 }, headers), 409, 'idempotency_key_reused');
    });
  });

  describe('GET /pets', () => {
    beforeAll(async () => {
      for (let i = 0; i < 25; i++) await create({ name: `bulk${i}`, categoryId: 2, status: 'pending' });
    });

    it('returns 20 animals by default, in ascending id order', async () => {
      const response = await get('/pets');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const ids = ((await response.json()) as Pet[]).map((p) => p.id);
      expect(ids).toHaveLength(20);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(20);
    });

    it('accepts limit 1 and limit 100', async () => {
      expect(await (await get('/pets?limit=1')).json()).toHaveLength(1);
      const hundred = await get('/pets?limit=100');
      expect(hundred.status).toBe(200);
      expect(((await hundred.json()) as Pet[]).length).toBeGreaterThan(20);
    });

    it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=', 'limit=1&limit=2'])(
      'rejects %s with 400 invalid_request on limit',
      async (query) => {
        expect(await failingFields(await get(`/pets?${query}`))).toEqual(['limit']);
      },
    );

    it('rejects status=lost with 400 invalid_request and filters on a known status', async () => {
      expect(await failingFields(await get('/pets?status=lost'))).toEqual(['status']);
      const pending = (await (await get('/pets?status=pending&limit=100')).json()) as Pet[];
      expect(pending.length).toBeGreaterThanOrEqual(25);
      expect(pending.every((p) => p.status === 'pending')).toBe(true);
    });

    it('pages through every animal by following absolute Link rel="next" URLs, without duplicates', async () => {
      const created: number[] = [];
      for (let i = 0; i < 7; i++) created.push((await create({ name: `sold${i}`, categoryId: 4, status: 'sold' })).id);
      const seen: number[] = [];
      const links: string[] = [];
      let next: string | undefined = `${api.base}/pets?status=sold&limit=3`;
      while (next) {
        const response: Response = await fetch(next, { headers: api.auth });
        expect(response.status).toBe(200);
        seen.push(...((await response.json()) as Pet[]).map((p) => p.id));
        const link = response.headers.get('link');
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
        if (link) expect(next).toBeDefined();
        if (next) links.push(next);
      }
      expect(seen).toEqual(created);
      expect(links).toHaveLength(2);
      for (const link of links) {
        const url = new URL(link);
        expect(`${url.origin}${url.pathname}`).toBe(`${api.base}/pets`);
        expect(url.searchParams.get('limit')).toBe('3');
        expect(url.searchParams.get('status')).toBe('sold');
        expect(url.searchParams.getAll('cursor')).toHaveLength(1);
      }
    });

    it('answers 400 invalid_request for a cursor it did not issue', async () => {
      expect(await failingFields(await get('/pets?cursor=bm9wZQ'))).toEqual(['cursor']);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const head = await fetch(`${api.base}/pets?limit=2`, { method: 'HEAD', headers: api.auth });
      const body = await (await get('/pets?limit=2')).text();
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(await head.text()).toBe('');
    });
  });

  describe('GET /pets/{petId}', () => {
    it('answers 200 with Deprecation, Sunset and a successor-version Link', async () => {
      const pet = await create({ name: 'Old', categoryId: 1 });
      const response = await get(`/pets/${pet.id}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(pet);
      expect(response.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-21T00:00:00Z') / 1000}`);
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(response.headers.get('link')).toBe(`<${api.base}/pets>; rel="successor-version"`);
    });

    it.each(['abc', '0', '-1', '1.5', '9007199254740992', '%31%zz'])('answers 400 invalid_request for petId %s', async (petId) => {
      expect(await failingFields(await get(`/pets/${petId}`))).toEqual(['petId']);
    });

    it('answers 404 not_found for an unknown id, still announcing the deprecation', async () => {
      const response = await get('/pets/999999999');
      await expectError(response, 404, 'not_found');
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    });

    it('answers 410 gone once the clock reaches the sunset', async () => {
      const pet = await create({ name: 'Late', categoryId: 1 });
      const before = api.clock.at;
      api.clock.at = Date.parse('2030-12-05T00:00:00Z');
      try {
        const response = await get(`/pets/${pet.id}`);
        await expectError(response, 410, 'gone');
        expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
        expect((await get('/pets?limit=1')).status).toBe(200);
      } finally {
        api.clock.at = before;
      }
      expect((await get(`/pets/${pet.id}`)).status).toBe(200);
    });
  });
});
