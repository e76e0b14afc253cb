import { afterEach, describe, expect, it } from 'vitest';
import { createClient, PetStoreApiError } from './index.js';
import { errorBody, scriptedServer } from './testing/scripted-server.js';
import { sharedClock } from './testing/service.js';

const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const refused = (status: number, code: string, retryAfter?: string) => ({
  status,
  headers: (retryAfter === undefined ? {} : { 'retry-after': retryAfter }) as Record<string, string>,
  body: errorBody(status, code),
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(...script: Parameters<typeof scriptedServer>[0]) {
  const server = await scriptedServer(script);
  close = server.close;
  return server;
}

describe('retries against a server that answers 429 and 503', () => {
  it('retries a 429 with Retry-After: 1 after about a second, with the same Idempotency-Key', async () => {
    const server = await serve(refused(429, 'rate_limited', '1'), { status: 201, body: pet });
    const petstore = createClient({ baseUrl: server.base, apiKey: 'k', maxRetries: 2 });
    expect(await petstore.createPet({ name: 'Rex', categoryId: 1 })).toEqual(pet);
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
    expect(second!.at - first!.at).toBeLessThan(1_800); // the timer's second, and a busy machine's scheduling
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
    expect(first!.headers.authorization).toBe('Bearer k');
  });

  it('sends the caller’s own Idempotency-Key on every attempt', async () => {
    const server = await serve(refused(503, 'unavailable', '1'), refused(503, 'unavailable', '1'), { status: 201, body: pet });
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: server.base, clock });
    await petstore.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-17' });
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual(['order-17', 'order-17', 'order-17']);
    expect(clock.waits).toEqual([1_000, 1_000]);
  });

  it('backs off exponentially with full jitter when a 503 has no Retry-After', async () => {
    const server = await serve(...Array.from({ length: 6 }, () => refused(503, 'unavailable')), { status: 200, body: [] });
    const clock = sharedClock();
    expect(await createClient({ baseUrl: server.base, clock, maxRetries: 6 }).listPets()).toEqual([]);
    expect(server.requests).toHaveLength(7);
    expect(clock.waits).toHaveLength(6);
    clock.waits.forEach((wait, attempt) => {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(Math.min(20_000, 500 * 2 ** attempt));
    });
  });

  it('draws each backoff evenly below its bound, so clients that failed together come back apart', async () => {
    const server = await serve(refused(503, 'unavailable'));
    const waits: number[] = [];
    for (let i = 0; i < 40; i++) {
      const clock = sharedClock();
      await createClient({ baseUrl: server.base, clock, maxRetries: 3 }).listPets().catch(() => undefined);
      expect(clock.waits).toHaveLength(3);
      waits.push(clock.waits[2]! / 2_000); // the third wait: below 0.5 s × 2² = 2 s
    }
    expect(Math.max(...waits)).toBeLessThan(1);
    expect(new Set(waits.map((share) => Math.floor(share * 4))).size).toBe(4); // every quarter of the range is drawn
  });

  it('reads an answer without the Error body as unexpected_response, and retries a proxy’s bare 503', async () => {
    const server = await serve({ status: 503, body: 'no server is available' }, { status: 502, body: 'bad gateway' });
    const clock = sharedClock();
    const error = await createClient({ baseUrl: server.base, clock }).listPets().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PetStoreApiError', code: 'unexpected_response', status: 502 });
    expect(server.requests).toHaveLength(2);
    expect(clock.waits).toHaveLength(1);
  });

  it('gives up after maxRetries and throws the last answer', async () => {
    const server = await serve(refused(503, 'unavailable', '1'));
    const petstore = createClient({ baseUrl: server.base, clock: sharedClock(), maxRetries: 2 });
    const error = await petstore.listPets().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetStoreApiError);
    expect(error).toMatchObject({ code: 'unavailable', status: 503, retryAfter: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    ['api_key_banned, even when its ban ends soon', refused(429, 'api_key_banned', '1')],
    ['a 400 invalid_request', refused(400, 'invalid_request')],
    ['a 401', refused(401, 'invalid_api_key')],
    ['a 404', refused(404, 'not_found')],
    ['a 409 without a lost answer before it', refused(409, 'idempotency_key_reused')],
    ['a 500', refused(500, 'internal_error')],
  ])('never retries %s', async (_, answer) => {
    const server = await serve(answer, { status: 201, body: pet });
    const petstore = createClient({ baseUrl: server.base, clock: sharedClock(), maxRetries: 5 });
    await expect(petstore.createPet({ name: 'Rex', categoryId: 1 })).rejects.toMatchObject({ code: answer.body.code });
    expect(server.requests).toHaveLength(1);
  });

  it('throws at once a 429 whose wait is longer than the caller allows, and sends nothing more for maxRetryWait', async () => {
    const server = await serve(refused(429, 'rate_limited', '42'), { status: 200, body: [] });
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: server.base, clock, maxRetryWait: 10_000 });
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 42 });
    expect(clock.waits).toEqual([]);
    const local = await petstore.listPets().catch((e: unknown) => e);
    expect(local).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 42, requestId: undefined });
    expect(server.requests).toHaveLength(1);
    clock.at += 9_999;
    await expect(petstore.listPets()).rejects.toMatchObject({ code: 'rate_limited', retryAfter: 33, requestId: undefined });
    expect(server.requests).toHaveLength(1);
    clock.at += 1;
    expect(await petstore.listPets()).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up when the wait would pass the call’s timeout, without waiting', async () => {
    const server = await serve(refused(503, 'unavailable', '5'), { status: 200, body: [] });
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: server.base, clock });
    await expect(petstore.listPets(undefined, { timeout: 3_000 })).rejects.toMatchObject({ code: 'unavailable' });
    expect(clock.waits).toEqual([]);
    expect(await petstore.listPets(undefined, { timeout: 10_000 })).toEqual([]);
  });

  it('stops waiting when the caller’s signal aborts', async () => {
    const server = await serve(refused(503, 'unavailable', '30'), { status: 200, body: [] });
    const petstore = createClient({ baseUrl: server.base });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(new Error('the user left')), 200);
    await expect(petstore.listPets(undefined, { signal: controller.signal })).rejects.toThrow('the user left');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('aborts an attempt that outlives the call’s timeout with a TimeoutError', async () => {
    const server = await serve({ status: 200, body: [] });
    server.server.removeAllListeners('request');
    server.server.on('request', () => {}); // never answers
    const petstore = createClient({ baseUrl: server.base, timeout: 300 });
    await expect(petstore.listPets()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('retries a read after a lost connection', async () => {
    const server = await serve('drop', { status: 200, body: [pet] });
    const petstore = createClient({ baseUrl: server.base, clock: sharedClock() });
    expect(await petstore.listPets()).toEqual([pet]);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a write after a lost connection under the same key, and a 409 while the lost attempt still runs', async () => {
    const inProgress = errorBody(409, 'idempotency_key_reused', 'The first request with this Idempotency-Key is still in progress.');
    const server = await serve('drop', { status: 409, body: inProgress }, { status: 201, headers: { 'idempotent-replayed': 'true' }, body: pet });
    const petstore = createClient({ baseUrl: server.base, clock: sharedClock(), maxRetries: 3 });
    expect(await petstore.createPet({ name: 'Rex', categoryId: 1 })).toEqual(pet);
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it('retries a 409 that says the first request with the key still runs, after its Retry-After', async () => {
    const running = { status: 409, headers: { 'retry-after': '1' }, body: errorBody(409, 'idempotency_key_reused') };
    const server = await serve(running, { status: 201, headers: { 'idempotent-replayed': 'true' }, body: pet });
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: server.base, clock });
    expect(await petstore.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'shared-17' })).toEqual(pet);
    expect(clock.waits).toEqual([1_000]);
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual(['shared-17', 'shared-17']);
  });

  it('holds every call of the client while a 429 waits, and sends them once the window has ended', async () => {
    const server = await serve(refused(429, 'rate_limited', '1'), { status: 200, body: [] });
    let seen = () => {};
    const refusalSeen = new Promise<void>((resolve) => (seen = resolve));
    const fetch = async (url: string, init: RequestInit) => {
      const response = await globalThis.fetch(url, init);
      if (response.status !== 429) return response;
      const text = await response.text();
      setTimeout(seen, 0); // once the client has read the refusal
      return new Response(text, response);
    };
    const petstore = createClient({ baseUrl: server.base, fetch });
    const first = petstore.listPets();
    await refusalSeen;
    const later = Array.from({ length: 5 }, () => petstore.listPets());
    await Promise.all([first, ...later]);
    const [refusal, ...after] = server.requests;
    expect(after).toHaveLength(6);
    for (const request of after) expect(request.at - refusal!.at).toBeGreaterThanOrEqual(990);
  });

  it('sends nothing into a window the last answer said is spent, until it resets', async () => {
    const spent = { 'ratelimit': '"minute";r=0;t=3, "day";r=900;t=40000', 'x-ratelimit-remaining': '0' };
    const server = await serve({ status: 200, headers: spent, body: [] }, { status: 200, body: [] });
    const clock = sharedClock();
    const petstore = createClient({ baseUrl: server.base, clock });
    await petstore.listPets();
    await petstore.listPets();
    expect(clock.waits).toEqual([3_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps at most maxConcurrency requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const server = await serve({ status: 200, body: [] });
    server.server.removeAllListeners('request');
    server.server.on('request', (_req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      }, 20);
    });
    const petstore = createClient({ baseUrl: server.base, maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, () => petstore.listPets()));
    expect(most).toBe(3);
  });
});
