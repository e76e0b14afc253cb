import { httpBatchLink, httpLink, splitLink, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { idempotencyKeyHeader } from './idempotency-key-header.js';
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
}

/**
 * The links of a tRPC client of the service: {@link petStoreRetryLink}, then queries batched and each mutation in a
 * request of its own with its `Idempotency-Key`, so that a retried `pets.create` never creates twice.
 * @example createTRPCClient<AppRouter>({ links: petStoreLinks({ url: 'https://api.example.com/trpc', apiKey }) })
 */
export function petStoreLinks<TRouter extends AnyRouter>(options: PetStoreLinksOptions): TRPCLink<TRouter>[] {
  const { url, apiKey, fetch } = options;
  const headers = { ...options.headers, ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }) };
  const transport = fetch ? { fetch } : {};
  // The service's router has no transformer, which a router's type in general may require: hence the casts.
  const single = { url, ...transport, headers: ({ op }: { op: Operation }) => ({ ...headers, ...idempotencyKeyHeader(op) }) };
  return [
    petStoreRetryLink<TRouter>({ ...options, idempotencyKeys: true }),
    splitLink<TRouter>({
      condition: (op) => op.type === 'mutation',
      true: httpLink<TRouter>(single as never),
      false: httpBatchLink<TRouter>({ url, ...transport, headers } as never),
    }),
  ];
}
