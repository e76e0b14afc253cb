import type { PetStore } from '@petstore/core';
import type { Batch, RequestContext } from '@petstore/http';

/** What the service's own tRPC router sees: the store, the request as the edge knows it, and where tRPC is served. */
export interface Context {
  readonly store: PetStore;
  readonly request: RequestContext;
  /** The absolute address of the tRPC API, for next-page links. */
  readonly trpcUrl: string;
  /** A streamed batch's calls, as the pipeline admitted them (one request: see `createBatch`). */
  readonly batch?: Batch | undefined;
}
