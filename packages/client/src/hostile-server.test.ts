import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientDefaults, createClient, PetStoreApiError, type RateLimitFields } from './index.js';
import { errorBody } from './testing/scripted-server.js';
import { listen, type Listening } from '@petstore/testing';
import { sharedClock } from './testing/service.js';
import { petStoreLinks } from './trpc.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const MiB = 1024 * 1024;

let server: Listening | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

/** A real server on port 0 that answers each request with the handler of its turn (the last one once spent). */
async function hostile(...turns: Handler[]) {
  const requests: string[] = [];
  server = await listen((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const turn = turns.length > 1 ? turns.shift()! : turns[0]!;
    req.resume().on('end', () => turn(req, res));
  });
  return { base: `${server.url}/v1`, url: server.url, requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const silent: Handler = () => {};
/** Sends the head and the start of a body, and nothing more. */
const neverEnds: Handler = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).write('[');
const spentWindow = { 'retry-after': '50', ratelimit: '"minute";r=0;t=50', 'x-ratelimit-remaining': '0' };

/** Settles within `ms` of real time, or says which did not. */
async function settledWithin<T>(ms: number, calls: Promise<T>[]) {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const outcome = await Promise.race([Promise.allSettled(calls), pending]);
  clearTimeout(timer);
  return outcome;
}

describe('the client against a hostile server', () => {
  it('settles 40 concurrent calls over a spent window, with maxRetryWait 1000', async () => {
    const host = await hostile(
      json(200, [pet], { ratelimit: '"minute";r=1;t=50' }),
      json(200, [pet], { ratelimit: '"minute";r=0;t=50' }),
      json(429, errorBody(429, 'rate_limited'), spentWindow),
    );
    const petstore = createClient({ baseUrl: host.base, apiKey: 'k', maxRetryWait: 1_000 });
    const outcome = await settledWithin(5_000, Array.from({ length: 40 }, () => petstore.listPets()));
    expect(outcome).not.toBe('pending');
    const settled = outcome as PromiseSettledResult<unknown>[];
    const refused = settled.filter((each) => each.status === 'rejected').map((each) => (each as PromiseRejectedResult).reason);
    expect(settled.length - refused.length).toBeGreaterThanOrEqual(1);
    for (const reason of refused) expect(reason).toMatchObject({ name: 'PetStoreApiError', code: 'rate_limited', status: 429 });
    // Eight in flight when the window ran out, and one sent on the answer that still had one left: the rest were
    // refused locally, and the service refused fewer than the 10 that would ban the key.
    expect(host.requests.length).toBeLessThanOrEqual(clientDefaults.maxConcurrency + 1);
    expect(host.requests.length - 2).toBeLessThan(10);
  });

  it('rejects a call queued behind full slots once its timeout passes, without sending it', async () => {
    const host = await hostile(silent);
    const petstore = createClient({ baseUrl: host.base, maxConcurrency: 2 });
    const stop = new AbortController();
    const holders = [petstore.listPets(undefined, { signal: stop.signal }), petstore.listPets(undefined, { signal: stop.signal })];
    await vi.waitFor(() => expect(host.requests).toHaveLength(2));
    const started = performance.now();
    await expect(petstore.listPets(undefined, { timeout: 200 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(host.requests).toHaveLength(2);
    stop.abort(new Error('done'));
    await expect(Promise.all(holders)).rejects.toThrow('done');
  });

  it('times out a body that never ends, by default after clientDefaults.timeout', async () => {
    expect(clientDefaults.timeout).toBe(120_000);
    const host = await hostile(neverEnds);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const call = createClient({ baseUrl: host.base }).listPets();
    const outcome = call.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    while (host.requests.length === 0) await new Promise((resolve) => setImmediate(resolve)); // not a timer: time stands
    await vi.advanceTimersByTimeAsync(clientDefaults.timeout - 1);
    expect(await Promise.race([outcome, new Promise((resolve) => setImmediate(() => resolve('pending')))])).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ name: 'TimeoutError' });
  });

  it('times out a body that never ends after a shorter timeout of its own', async () => {
    const host = await hostile(neverEnds);
    await expect(createClient({ baseUrl: host.base, timeout: 300 }).listPets()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('refuses a 200 MB body past 10 MiB by default, and the process stays below 400 MB', { timeout: 60_000 }, async () => {
    expect(clientDefaults.maxResponseBytes).toBe(10 * MiB);
    const chunk = Buffer.alloc(MiB, '{"id":1,"name":"Rex","categoryId":1,"status":"available"},');
    let sent = 0;
    let closed = false;
    const host = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('[');
      res.on('close', () => (closed = true));
      const more = () => {
        while (sent < 200 * MiB && !closed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end(']');
      };
      more();
    });
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    const error = await createClient({ baseUrl: host.base })
      .listPets()
      .catch((e: unknown) => e)
      .finally(() => clearInterval(sampler));
    peak = Math.max(peak, process.resourceUsage().maxRSS * 1024); // the process's peak, also between samples
    expect(peak).toBeLessThan(400 * MiB);
    expect(error).toBeInstanceOf(PetStoreApiError);
    expect(error).toMatchObject({ code: 'response_too_large', status: 200 });
    await vi.waitFor(() => expect(closed).toBe(true));
    expect(sent).toBeLessThan(100 * MiB); // the client hung up: the rest was never sent
  });

  it('refuses a body whose Content-Length is past maxResponseBytes before reading it', async () => {
    const host = await hostile((_req, res) => void res.writeHead(200, { 'content-length': String(2 * MiB) }).write('['));
    const petstore = createClient({ baseUrl: host.base, maxResponseBytes: MiB });
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'response_too_large' });
  });

  it('lets a proxy’s 1-day Retry-After stop the client for maxRetryWait at most, then probes with one request', async () => {
    const proxy429: Handler = (_req, res) => void res.writeHead(429, { 'retry-after': '86400', 'content-type': 'text/html' }).end('<h1>Slow down</h1>');
    const host = await hostile(proxy429, proxy429, json(200, []));
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: host.base, clock, maxRetryWait: 10_000 });
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'unexpected_response', status: 429, retryAfter: 86_400 });
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'rate_limited', status: 429, requestId: undefined });
    expect(host.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);

    clock.at += 10_000; // maxRetryWait later: one request goes, and the others wait for its answer
    const burst = await Promise.allSettled(Array.from({ length: 5 }, () => petstore.listPets()));
    expect(host.requests).toHaveLength(2);
    expect(burst.map((each) => each.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);

    clock.at += 10_000;
    expect(await Promise.all(Array.from({ length: 5 }, () => petstore.listPets()))).toEqual([[], [], [], [], []]);
    expect(host.requests).toHaveLength(7);
  });

  it('lets a RateLimit field that resets in 31 years stop the client for maxRetryWait at most', async () => {
    const host = await hostile(json(200, [], { ratelimit: '"minute";r=0;t=999999999' }), json(200, [pet]));
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: host.base, clock, maxRetryWait: 1_000 });
    expect(await petstore.listPets()).toEqual([]);
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 999_999_999 });
    clock.at += 1_000;
    expect(await petstore.listPets()).toEqual([pet]);
    expect(host.requests).toHaveLength(2);
  });

  it('ends paginate with repeated_cursor when the service gives a cursor it gave before', async () => {
    const page = (cursor: string): Handler => json(200, [pet], { link: `</v1/pets?limit=1&cursor=${cursor}>; rel="next"` });
    const host = await hostile(page('a'), page('b'), page('a'));
    const petstore = createClient({ baseUrl: host.base });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const each of petstore.paginate('listPets', { limit: 1 })) seen.push(each);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetStoreApiError);
    expect(error).toMatchObject({ code: 'repeated_cursor', status: 200 });
    expect((error as Error).message).toMatch(/after 3 pages.*cursor it had given before/);
    expect(seen).toHaveLength(3);
    expect(host.requests).toEqual(['GET /v1/pets?limit=1', 'GET /v1/pets?limit=1&cursor=a', 'GET /v1/pets?limit=1&cursor=b']);
  });

  it('tells the client’s and the call’s onRateLimit every answer’s rate-limit fields', async () => {
    const fields = {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1795262460',
      'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      ratelimit: '"minute";r=0;t=1, "day";r=940;t=43000',
    };
    const host = await hostile(json(429, errorBody(429, 'rate_limited'), { ...fields, 'retry-after': '1' }), json(200, [], fields));
    const client: RateLimitFields[] = [];
    const call: RateLimitFields[] = [];
    const petstore = createClient({ baseUrl: host.base, clock: sharedClock(), onRateLimit: (each) => client.push(each) });
    await petstore.listPets(undefined, { onRateLimit: (each) => call.push(each) });
    const expected = {
      limit: 60,
      remaining: 0,
      reset: new Date(1_795_262_460_000),
      windows: [
        { name: 'minute', remaining: 0, resetIn: 1, limit: 60 },
        { name: 'day', remaining: 940, resetIn: 43_000, limit: 1000 },
      ],
    };
    expect(call).toEqual([
      { ...expected, status: 429 },
      { ...expected, status: 200 },
    ]);
    expect(client).toEqual(call);
  });
});

describe('petStoreLinks against a hostile server', () => {
  it('rejects a call queued behind full slots once its signal aborts, without sending it', async () => {
    const host = await hostile(silent);
    const trpc = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${host.url}/trpc`, maxConcurrency: 1 }) });
    const stop = new AbortController();
    const first = trpc.pets.list.query({ limit: 1 }, { signal: stop.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(host.requests).toHaveLength(1));
    const queued = await trpc.pets.list.query({ limit: 2 }, { signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    expect(queued).toBeInstanceOf(TRPCClientError);
    expect((queued as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(host.requests).toHaveLength(1);
    stop.abort(new Error('done'));
    expect(await first).toBeInstanceOf(TRPCClientError);
  });

  it('refuses a body past maxResponseBytes, and times out a body that never ends', async () => {
    const huge = Buffer.alloc(2 * MiB, 'x');
    const host = await hostile((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(huge), neverEnds);
    const trpc = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${host.url}/trpc`, maxResponseBytes: MiB, timeout: 300 }) });
    const tooLarge = await trpc.pets.list.query({ limit: 1 }).catch((e: unknown) => e);
    expect(tooLarge).toBeInstanceOf(TRPCClientError);
    expect((tooLarge as Error).cause).toMatchObject({ code: 'response_too_large' });
    expect(host.requests).toHaveLength(1); // not retried
    const hung = await trpc.pets.list.query({ limit: 1 }).catch((e: unknown) => e);
    expect(hung).toBeInstanceOf(TRPCClientError);
    expect((hung as Error).cause).toMatchObject({ name: 'TimeoutError' });
  });
});
