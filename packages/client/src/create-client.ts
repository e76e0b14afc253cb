import { callWithRetries, type Transport } from './call-with-retries.js';
import type { CallOptions } from './call-options.js';
import { clientDefaults } from './client-defaults.js';
import { systemClock, type ClientClock } from './clock.js';
import { deprecationNotice, inProduction, warnOfDeprecation, type DeprecationHandler } from './deprecation-notice.js';
import { prepareRequest } from './http-request.js';
import { linkOf } from './link-header.js';
import type { InputArgs } from './operation-method.js';
import type { OperationMethods } from './operation-methods.js';
import type { OperationId, OperationInput, OperationOutput, PageableOperationId, PageItem } from './operation-types.js';
import { operations, type Route } from './operations.js';
import { PetStoreApiError } from './pet-store-api-error.js';
import { createRateGate } from './rate-gate.js';
import { tell, type RateLimitHandler } from './rate-limit-fields.js';

/** How a client calls the service. Only `baseUrl` is required. */
export interface ClientOptions {
  /** The base address, ending in the version segment: `https://api.example.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /** Retries after the first attempt of a call (429 `rate_limited`, 503, a lost connection). Default 2. */
  maxRetries?: number | undefined;
  /**
   * The longest wait before a retry, in ms; a 429 or 503 asking for more is thrown at once. It also bounds how long
   * any answer can stop the client from sending (a `Retry-After` or a spent `RateLimit` window). Default 60 000.
   */
  maxRetryWait?: number | undefined;
  /**
   * Milliseconds a whole call may take: the queue, every attempt, the bodies and the waits between retries. Past it
   * the call rejects with a `TimeoutError`. Default 120 000; `Infinity` for no limit.
   */
  timeout?: number | undefined;
  /**
   * The largest answer body the client reads, in bytes: past it the call rejects with a `response_too_large`
   * {@link PetStoreApiError} and the rest is never received. Default 10 MiB.
   */
  maxResponseBytes?: number | undefined;
  /** Told the rate-limit fields of every answer that carries them (each call can add its own, `onRateLimit`). */
  onRateLimit?: RateLimitHandler | undefined;
  /**
   * Requests in flight at once. Default 8: fewer than the 10 refusals in a minute after which the service bans a key,
   * so a burst that finds the window spent cannot get the key banned.
   */
  maxConcurrency?: number | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** The fetch to use; the global one by default. */
  fetch?: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  /**
   * Told once per operation when the service answers it as deprecated (`Deprecation`, `Sunset`). Default: a console
   * warning unless `NODE_ENV` is `production`; `false` for nothing.
   */
  onDeprecation?: DeprecationHandler | false | undefined;
  /** Time and waiting; inject one in tests. */
  clock?: ClientClock | undefined;
}

/** An answer with its `ETag`: its data, or, when `ifNoneMatch` matched (304), none. */
export type TaggedAnswer<K extends OperationId> =
  | { notModified: false; data: OperationOutput<K>; etag: string | undefined }
  | { notModified: true; data: undefined; etag: string | undefined };

/** A client of the service: one method per operation, `paginate` and `withETag`. */
export interface PetStoreClient extends OperationMethods {
  /**
   * Calls an operation and answers its data with its `ETag` (the version of one animal, or of a list page). With
   * `ifNoneMatch` (a read's ETag from before), a read that has not changed answers `notModified` and no data: a 304,
   * counted against no rate-limit window. With `ifMatch`, a change made only on that version.
   * @example const { data: pet, etag } = await petstore.withETag('getPet', { petId: 7 }); await petstore.updatePet({ petId: 7, status: 'sold' }, { ifMatch: etag })
   * @example const page = await petstore.withETag('listPets', { limit: 20 }, { ifNoneMatch: etag }); if (!page.notModified) show(page.data)
   */
  withETag<K extends OperationId>(
    operationId: K,
    input: OperationInput<K>,
    options?: CallOptions & { ifNoneMatch?: string | undefined },
  ): Promise<TaggedAnswer<K>>;
  /**
   * Every item of a listing, page after page, following each answer's `Link: rel="next"` cursor until the last page;
   * fetches a page only when the loop wants it, and stops when the loop breaks.
   * @example for await (const pet of petstore.paginate('listPets', { status: 'available' })) console.log(pet.name)
   */
  paginate<K extends PageableOperationId>(operationId: K, ...args: InputArgs<K>): AsyncGenerator<PageItem<K>, void, undefined>;
}

/**
 * A client of the Pet Store API for any runtime with `fetch` (Node 20+, browsers, Bun, Deno): typed calls, retries
 * as the service asks, pagination, and writes that are safe to retry.
 * @example const petstore = createClient({ baseUrl: 'https://api.example.com/v1', apiKey }); await petstore.createPet({ name: 'Rex', categoryId: 1 })
 */
export function createClient(options: ClientOptions): PetStoreClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const clock = options.clock ?? systemClock;
  const fetcher = options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init));
  const onDeprecation = options.onDeprecation ?? (inProduction() ? false : warnOfDeprecation);
  const told = new Set<string>();
  const maxRetryWait = options.maxRetryWait ?? clientDefaults.maxRetryWait;
  const { onRateLimit } = options;
  const transport: Transport = {
    fetch: (url, init) => fetcher(url, init),
    gate: createRateGate({ maxConcurrency: options.maxConcurrency ?? clientDefaults.maxConcurrency, maxBlock: maxRetryWait, clock }),
    clock,
    headers: { ...options.headers, ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
    maxRetries: options.maxRetries ?? clientDefaults.maxRetries,
    maxRetryWait,
    timeout: options.timeout ?? clientDefaults.timeout,
    maxResponseBytes: options.maxResponseBytes ?? clientDefaults.maxResponseBytes,
    answered(route, status, headers) {
      if (onRateLimit) tell(onRateLimit, status, headers);
      if (!onDeprecation || told.has(route.operationId)) return;
      const notice = deprecationNotice(route, headers);
      if (!notice) return;
      told.add(route.operationId);
      onDeprecation(notice);
    },
  };
  const call = (route: Route, input: object | undefined, callOptions: CallOptions = {}) =>
    callWithRetries(transport, route, prepareRequest(baseUrl, route, input), callOptions);

  const routes: Record<string, Route> = operations;
  const methods = Object.fromEntries(
    Object.entries(routes).map(([operationId, route]) => [
      operationId,
      async (input?: object, callOptions?: CallOptions) => (await call(route, input, callOptions)).data,
    ]),
  );

  async function* paginate(operationId: OperationId, input?: object, callOptions?: CallOptions) {
    const route = routes[operationId];
    if (!route) throw new TypeError(`No operation ${operationId}.`);
    let cursor: string | undefined;
    const followed = new Set<string>();
    do {
      const { data, headers, status } = await call(route, cursor === undefined ? input : { ...input, cursor }, callOptions);
      yield* data as unknown[];
      const next = linkOf(headers.get('link'), 'next');
      cursor = next === undefined ? undefined : (new URL(next, baseUrl).searchParams.get('cursor') ?? undefined);
      if (cursor !== undefined && followed.has(cursor)) {
        throw new PetStoreApiError({
          code: 'repeated_cursor',
          status,
          message: `paginate stopped after ${followed.size + 1} pages: the service gave a next cursor it had given before, so following it would never end.`,
          requestId: headers.get('x-request-id') ?? undefined,
        });
      }
      if (cursor !== undefined) followed.add(cursor);
    } while (cursor !== undefined);
  }

  async function withETag(operationId: OperationId, input: object | undefined, options: CallOptions & { ifNoneMatch?: string } = {}) {
    const route = routes[operationId];
    if (!route) throw new TypeError(`No operation ${operationId}.`);
    const { ifNoneMatch, ...callOptions } = options;
    if (ifNoneMatch !== undefined && !route.writes) callOptions.headers = { ...callOptions.headers, 'if-none-match': ifNoneMatch };
    const { data, headers, status } = await call(route, input, callOptions);
    const etag = headers.get('etag') ?? undefined;
    return status === 304 ? { notModified: true, data: undefined, etag } : { notModified: false, data, etag };
  }

  return Object.freeze({ ...methods, paginate, withETag }) as unknown as PetStoreClient;
}
