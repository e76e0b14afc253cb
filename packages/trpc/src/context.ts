import type { PetStore, ResponseMeta } from '@petstore/core';
import type { RequestContext } from '@petstore/http';

/** What every procedure sees: the store, the request as the edge knows it, and what the response carries. */
export interface Context {
  readonly store: PetStore;
  readonly request: RequestContext;
  /** The absolute address of the tRPC API, for next-page links. */
  readonly trpcUrl: string;
  /** Filled as procedures answer; turned into headers when the response is written. */
  readonly response: { meta: ResponseMeta; nextUrl?: string };
}
