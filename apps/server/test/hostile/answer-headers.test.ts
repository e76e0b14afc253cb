import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';

// Every answer carries nosniff; keyed answers (every answer of /v1 and /trpc, errors included) and the probes are
// no-store, so no shared cache serves one key's answer to another (a REST read with an ETag is private, no-cache); the document and the docs page, the same for
// everyone, keep their own revalidated caching.
const KEY = 'hostile-headers-key-0001';

describe('the headers of every answer', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:free` });
  });
  afterAll(() => server.stop());

  const headersOf = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}${path}`, init);
    await response.arrayBuffer();
    return { status: response.status, nosniff: response.headers.get('x-content-type-options'), cache: response.headers.get('cache-control') };
  };
  const keyed = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const list = encodeURIComponent(JSON.stringify({ 0: {}, 1: { limit: 0 } }));

  it('keep API answers, errors included, out of shared caches and unsniffed, on REST and tRPC', async () => {
    const answers = {
      list: await headersOf('/v1/pets', { headers: keyed }),
      create: await headersOf('/v1/pets', { method: 'POST', headers: keyed, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) }),
      invalid: await headersOf('/v1/pets', { method: 'POST', headers: keyed, body: JSON.stringify({ name: '' }) }),
      missingKey: await headersOf('/v1/pets'),
      wrongKey: await headersOf('/v1/pets', { headers: { authorization: 'Bearer not-a-key-at-all-0000' } }),
      notFound: await headersOf('/v1/pets/999', { headers: keyed }),
      methodNotAllowed: await headersOf('/v1/pets', { method: 'DELETE', headers: keyed }),
      unknownPath: await headersOf('/nowhere'),
      trpcQuery: await headersOf(`/trpc/pets.list?input=${encodeURIComponent('{}')}`, { headers: keyed }),
      trpcBatch: await headersOf(`/trpc/pets.list,pets.list?batch=1&input=${list}`, { headers: keyed }),
      trpcStream: await headersOf(`/trpc/pets.list,pets.list?batch=1&input=${list}`, { headers: { ...keyed, 'trpc-accept': 'application/jsonl' } }),
      trpcUnauthorised: await headersOf('/trpc/pets.list'),
    };
    expect(Object.values(answers).map((answer) => answer.status)).toEqual([200, 201, 400, 401, 401, 404, 405, 404, 200, 207, 200, 401]);
    // A REST read with an ETag may be kept by the client's own cache and revalidated (never by a shared one).
    const revalidated = new Set(['list']);
    for (const [name, answer] of Object.entries(answers)) {
      const cache = revalidated.has(name) ? 'private, no-cache' : 'no-store';
      expect({ name, nosniff: answer.nosniff, cache: answer.cache }).toEqual({ name, nosniff: 'nosniff', cache });
    }
  });

  it('give the probes no-store, and the document and docs page revalidated caching, all unsniffed', async () => {
    expect(await headersOf('/healthz')).toEqual({ status: 200, nosniff: 'nosniff', cache: 'no-store' });
    expect(await headersOf('/livez')).toEqual({ status: 200, nosniff: 'nosniff', cache: 'no-store' });
    expect(await headersOf('/v1/openapi.json')).toEqual({ status: 200, nosniff: 'nosniff', cache: 'no-cache' });
    expect(await headersOf('/v1/docs/')).toMatchObject({ status: 200, nosniff: 'nosniff', cache: 'no-cache' });
  });
});
