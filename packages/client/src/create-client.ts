import { callWithRetries, type Transport } from './call-with-retries.js';
import type { CallOptions } from './call-options.js';
import { systemClock, type ClientClock } from './clock.js';
import { deprecationNotice, inProduction, warnOfDeprecation, type DeprecationHandler } from './deprecation-notice.js';
import { prepareRequest } from './http-request.js';
import { linkOf } from './link-header.js';
import type { InputArgs } from './operation-method.js';
import type { OperationMethods } from './operation-methods.js';
import type { OperationId, PageableOperationId, PageItem } from './operation-types.js';
import { operations, type Route } from './operations.js';
import { createRateGate } from './rate-gate.js';

/** How a client calls the service. Only `baseUrl` is required. */
export interface ClientOptions {
  /** The base address, ending in the version segment: `https://api.example.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /** Retries after the first attempt of a call (429 `rate_limited`, 503, a lost connection). Default 2. */
  maxRetries?: number | undefined;
  /** The longest wait before a retry, in ms; a 429 or 503 asking for longer is thrown at once. Default 60 000. */
  maxRetryWait?: number | undefined;
  /** Milliseconds a whole call may take, retries included. Default: no limit. */
  timeout?: number | undefined;
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

/** A client of the service: one method per operation, and `paginate`. */
export interface PetStoreClient extends OperationMethods {
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
  const transport: Transport = {
    fetch: (url, init) => fetcher(url, init),
    gate: createRateGate({ maxConcurrency: options.maxConcurrency ?? 8, clock }),
    clock,
    headers: { ...options.headers, ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
    maxRetries: options.maxRetries ?? 2,
    maxRetryWait: options.maxRetryWait ?? 60_000,
    timeout: options.timeout,
    answered(route, headers) {
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
    do {
      const { data, headers } = await call(route, cursor === undefined ? input : { ...input, cursor }, callOptions);
      yield* data as unknown[];
      const next = linkOf(headers.get('link'), 'next');
      cursor = next === undefined ? undefined : (new URL(next, baseUrl).searchParams.get('cursor') ?? undefined);
    } while (cursor !== undefined);
  }

  return Object.freeze({ ...methods, paginate }) as unknown as PetStoreClient;
}
