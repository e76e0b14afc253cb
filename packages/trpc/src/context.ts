import type { NodeHTTPRequest } from '@trpc/server/adapters/node-http';
import { bearerToken, type PetStore, type ResponseMeta } from '@petstore/core';

/** What every procedure sees: the store, who calls, where links point, and what the response carries. */
export interface Context {
  readonly store: PetStore;
  readonly caller: {
    readonly apiKey: string | undefined;
    readonly clientAddress: string | undefined;
    /** The `Idempotency-Key` header; the core applies it to `pets.create` only. */
    readonly idempotencyKey: string | undefined;
  };
  /** Absolute base addresses: the REST one (ending in `/v1`) for successor links, the tRPC one for next pages. */
  readonly links: { readonly baseUrl: string; readonly trpcUrl: string };
  /** Filled as procedures answer; turned into headers when the response is written. */
  readonly response: { meta: ResponseMeta; nextUrl?: string };
}

/** What {@link createContext} is built from. */
export interface CreateContextOptions {
  store: PetStore;
  req: NodeHTTPRequest;
  /** The client's address for the limit on requests without a valid key; defaults to the socket's. */
  clientAddress?: string | undefined;
  /** The absolute REST base address ending in `/v1`; defaults to `http://<Host>/v1`. */
  publicBaseUrl?: string | undefined;
  /** Where the tRPC API is mounted, next to `/v1`. */
  basePath?: string;
}

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The context of one HTTP request: the bearer token via the core's `bearerToken`, the client address, the links.
 * @example createContext({ store, req, publicBaseUrl: 'https://api.example.com/v1' })
 */
export function createContext(options: CreateContextOptions): Context {
  const { store, req, basePath = '/trpc' } = options;
  const authorization = firstHeader(req.headers.authorization);
  const baseUrl = (options.publicBaseUrl ?? `http://${req.headers.host ?? 'localhost'}/v1`).replace(/\/+$/, '');
  return {
    store,
    caller: {
      apiKey: bearerToken(authorization),
      clientAddress: options.clientAddress ?? req.socket?.remoteAddress,
      idempotencyKey: firstHeader(req.headers['idempotency-key']),
    },
    links: { baseUrl, trpcUrl: `${baseUrl.replace(/\/v1$/, '')}${basePath}` },
    response: { meta: {} },
  };
}
