import { httpBatchLink, httpLink, splitLink, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { clientDefaults } from '../client-defaults.js';
import { boundedResponse } from '../read-body.js';
import { idempotencyKeyHeader } from './idempotency-key-header.js';
import { ifMatchHeader } from './if-match-header.js';
import { petStoreRetryLink } from './petstore-retry-link.js';
import type { RetryLinkOptions } from './retry-options.js';

/** Where and how the links call the service's tRPC API. */
export interface PetStoreLinksOptions extends RetryLinkOptions {
  /** The tRPC address: `https://api.example.com/trpc`. */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** The fetch to use; the global one by default. */
  fetch?: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  /**
   * The largest answer body read, in bytes: past it the call rejects with a `TRPCClientError` whose cause is a
   * `response_too_large` `PetStoreApiError`, and the rest is never received. Default 10 MiB.
   */
  maxResponseBytes?: number | undefined;
}

/**
 * The links of a tRPC client of the service: {@link petStoreRetryLink}, then queries batched and each mutation in a
 * request of its own with its `Idempotency-Key` (and its `If-Match`, from `context.ifMatch`), so that a retried
 * `pets.create` never creates twice and `pets.update` changes only the version named; no answer's
 * body is read past `maxResponseBytes`.
 * @example createTRPCClient<AppRouter>({ links: petStoreLinks({ url: 'https://api.example.com/trpc', apiKey }) })
 */
export function petStoreLinks<TRouter extends AnyRouter>(options: PetStoreLinksOptions): TRPCLink<TRouter>[] {
  const { url, apiKey } = options;
  const headers = { ...options.headers, ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }) };
  const fetcher = options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init));
  const maxBytes = options.maxResponseBytes ?? clientDefaults.maxResponseBytes;
  const transport = { fetch: async (url: string, init: RequestInit) => boundedResponse(await fetcher(url, init), maxBytes) };
  // The service's router has no transformer, which a router's type in general may require: hence the casts.
  const single = { url, ...transport, headers: ({ op }: { op: Operation }) => ({ ...headers, ...idempotencyKeyHeader(op), ...ifMatchHeader(op) }) };
  return [
    petStoreRetryLink<TRouter>({ ...options, idempotencyKeys: true }),
    splitLink<TRouter>({
      condition: (op) => op.type === 'mutation',
      true: httpLink<TRouter>(single as never),
      false: httpBatchLink<TRouter>({ url, ...transport, headers } as never),
    }),
  ];
}
