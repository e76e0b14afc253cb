import { testDatabases } from '@petstore/testing';
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../app-router.js';
import { maxBatchSize } from '../max-batch-size.js';
import { startTrpcServer, type TrpcServer } from '../testing/trpc-server.js';

// DECISIONS "Hostile clients and overload": a tRPC batch is one request at the edge.
type Envelope = { error?: { message: string; data: { httpStatus: number; error: { code: string; status: number } } }; result?: unknown };

describe.each(testDatabases)('tRPC batches at the edge on $name', (database) => {
  let server: TrpcServer;
  const batchUrl = (paths: string[], inputs?: Record<number, unknown>) =>
    `${server.trpcUrl}/${paths.join(',')}?batch=1${inputs ? `&input=${encodeURIComponent(JSON.stringify(inputs))}` : ''}`;
  const post = (paths: string[], inputs: Record<number, unknown>, headers: Record<string, string> = {}) =>
    fetch(batchUrl(paths), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(inputs) });
  const creates = (n: number, name: string) => ({
    paths: Array.from({ length: n }, () => 'pets.create'),
    inputs: Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { name: `${name}-${i}`, categoryId: 1, status: 'sold' }])),
  });
  const enterprise = async (perMinute: number) => {
    const { key } = await server.store.apiKeys.create({ plan: 'enterprise', limits: { perMinute, perDay: 100_000 } });
    return { authorization: `Bearer ${key}` };
  };
  /** How many pets have a name starting with `prefix` (read in process, past the HTTP edge). */
  const named = async (prefix: string) => {
    let count = 0;
    let cursor: string | undefined;
    do {
      const { data, meta } = await server.store.listPets({ limit: 100, status: 'sold', cursor }, { principal: { id: 'counter', plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } } });
      count += data.filter((pet) => pet.name.startsWith(`${prefix}-`)).length;
      cursor = meta.nextCursor;
    } while (cursor);
    return count;
  };

  beforeAll(async () => {
    server = await startTrpcServer(database);
  });
  afterAll(() => server.close());
  // Each test starts in a fresh minute: the per-address counts of the earlier ones are gone.
  beforeEach(() => {
    server.clock.at += 60_000;
  });

  it(`refuses a batch of more than ${maxBatchSize} calls with one small 400 before any call runs, counted once`, async () => {
    const auth = await enterprise(1_000);
    const { paths, inputs } = creates(maxBatchSize + 1, 'oversize');
    const refused = await post(paths, inputs, auth);
    const text = await refused.text();
    expect(refused.status).toBe(400);
    expect(text.length).toBeLessThan(600);
    const body = JSON.parse(text) as Envelope;
    expect(body.error?.data.error).toEqual({
      code: 'invalid_request',
      status: 400,
      message: `A batch holds at most ${maxBatchSize} calls.`,
      details: [{ path: 'batch', message: `names more than ${maxBatchSize} calls` }],
    });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(await named('oversize')).toBe(0);

    const keyless = await fetch(batchUrl(Array.from({ length: 1_800 }, () => 'pets.get'), {}));
    expect(keyless.status).toBe(400);
    expect((await keyless.text()).length).toBeLessThan(600);
    expect(keyless.headers.get('x-ratelimit-remaining')).toBe('59');

    const { paths: most, inputs: mostInputs } = creates(maxBatchSize, 'most');
    const served = await post(most, mostInputs, auth);
    expect(served.status).toBe(200);
    expect(((await served.json()) as Envelope[]).every((entry) => entry.result)).toBe(true);
    expect(await named('most')).toBe(maxBatchSize);
  });

  it('refuses a batch without a valid key once: one 401 answer, counted once against the address', async () => {
    const paths = Array.from({ length: 50 }, () => 'pets.list');
    for (const [headers, code, remaining] of [
      [{}, 'missing_api_key', '59'],
      [{ authorization: `Bearer ${'x'.repeat(24)}` }, 'invalid_api_key', '58'],
    ] as const) {
      const refused = await fetch(batchUrl(paths, {}), { headers });
      const text = await refused.text();
      expect(refused.status).toBe(401);
      expect(text.length).toBeLessThan(600);
      expect((JSON.parse(text) as Envelope).error?.data.error).toMatchObject({ code, status: 401 });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe(remaining);
    }
    // The real client gives the one answer to every call of its batch.
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: server.trpcUrl })] });
    const calls = await Promise.allSettled([client.pets.list.query({}), client.pets.get.query({ petId: 1 }), client.pets.page.query({})]);
    for (const call of calls) {
      expect(call.status).toBe('rejected');
      expect(((call as PromiseRejectedResult).reason as TRPCClientError<AppRouter>).data?.error.code).toBe('missing_api_key');
    }
    const after = await fetch(batchUrl(['pets.list'], {}));
    expect(after.headers.get('x-ratelimit-remaining')).toBe('56');
  });

  it('refuses a streamed batch without a valid key once, with one JSON 401', async () => {
    const refused = await fetch(batchUrl(['pets.list', 'pets.list', 'pets.page'], {}), { headers: { 'trpc-accept': 'application/jsonl' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await refused.json()) as Envelope).error?.data.error.code).toBe('missing_api_key');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('59');
    const client = createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: server.trpcUrl })] });
    const calls = await Promise.allSettled([client.pets.list.query({}), client.pets.page.query({})]);
    expect(calls.map((call) => call.status === 'rejected' && (call.reason as TRPCClientError<AppRouter>).data?.error.code)).toEqual([
      'missing_api_key',
      'missing_api_key',
    ]);
    const streamed = createTRPCClient<AppRouter>({
      links: [httpBatchStreamLink({ url: server.trpcUrl, headers: { authorization: `Bearer ${server.apiKey}` } })],
    });
    const [list, page] = await Promise.all([streamed.pets.list.query({ limit: 1 }), streamed.pets.page.query({ limit: 1 })]);
    expect([list.length, page.items.length]).toEqual([1, 1]);
  });

  it('answers a batch from an address over its limit once, alike for a wrong key and a valid one never used there', async () => {
    for (let i = 0; i < 60; i++) await fetch(batchUrl(['pets.list', 'pets.list'], {}));
    const { key: fresh } = await server.store.apiKeys.create({ plan: 'pro' });
    const answers = [];
    for (const key of ['y'.repeat(24), fresh]) {
      const response = await fetch(batchUrl(['pets.list', 'pets.get'], { 1: { petId: 1 } }), { headers: { authorization: `Bearer ${key}` } });
      const rateLimit = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'].map((name) => response.headers.get(name));
      answers.push({ status: response.status, body: await response.text(), rateLimit });
    }
    expect(answers[0]!.status).toBe(429);
    expect((JSON.parse(answers[0]!.body) as Envelope).error?.data.error.code).toBe('rate_limited');
    expect(answers[1]).toEqual(answers[0]);
    const streamed = await fetch(batchUrl(['pets.list', 'pets.list'], {}), { headers: { 'trpc-accept': 'application/jsonl' } });
    expect([streamed.status, streamed.headers.get('content-type')]).toEqual([429, 'application/json; charset=utf-8']);
  });

  it('counts every call of a batch with a valid key, and refuses the calls after a 429 without running them', async () => {
    const auth = await enterprise(3);
    const { paths, inputs } = creates(6, 'limited');
    const response = await post(paths, inputs, auth);
    expect(response.status).toBe(207);
    const body = (await response.json()) as Envelope[];
    expect(body.map((entry) => (entry.result ? 200 : entry.error!.data.httpStatus))).toEqual([200, 200, 200, 429, 429, 429]);
    expect(await named('limited')).toBe(3);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // A batch is one request toward a ban (DECISIONS "Hostile clients and overload"): 13 calls on a limit of 2 answer
    // 2 and 11 429s, and the ban comes only with the 10th request after the batch, as after any one refused request.
    server.clock.at += 60_000;
    const banned = await enterprise(2);
    const { paths: more, inputs: moreInputs } = creates(13, 'banned');
    const answered = (await (await post(more, moreInputs, banned)).json()) as Envelope[];
    expect(answered.filter((entry) => entry.result)).toHaveLength(2);
    expect(answered.filter((entry) => entry.error?.data.error.code === 'rate_limited')).toHaveLength(11);
    expect(await named('banned')).toBe(2);
    const codes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const next = await fetch(batchUrl(['pets.list'], {}), { headers: banned });
      codes.push(((await next.json()) as Envelope[])[0]!.error!.data.error.code);
    }
    expect(codes).toEqual([...Array(9).fill('rate_limited'), 'api_key_banned']);
  });

  it('keeps quotas exact under concurrent batches of one key', async () => {
    const auth = await enterprise(10);
    const answers = await Promise.all(
      Array.from({ length: 4 }, async (_, batch) => {
        const { paths, inputs } = creates(5, `concurrent${batch}`);
        return (await (await post(paths, inputs, auth)).json()) as Envelope[];
      }),
    );
    const statuses = answers.flat().map((entry) => (entry.result ? 200 : entry.error!.data.httpStatus));
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    let created = 0;
    for (let batch = 0; batch < 4; batch++) created += await named(`concurrent${batch}`);
    expect(created).toBe(10);
  });
});
