import type { InputReader, OperationId, Outcome, PetStoreError } from '@petstore/core';
import type { Batch } from './batch.js';
import type { RequestContext } from './request-context.js';
import type { StandardRequest, StandardResponse } from './standard.js';

/**
 * One call of a request into the core: the operation, and how to read its input once the request is admitted; or a
 * call that fails before reaching the core (a batch entry naming no procedure).
 */
export type CodecCall =
  | {
      readonly operationId: OperationId;
      readonly readInput: InputReader;
      /** The `If-None-Match` of a conditional read (REST's): its answer may be 304, counted against no window. */
      readonly ifNoneMatch?: string | undefined;
    }
  | { readonly failure: PetStoreError };

/** The answer of one call: its outcome, or the error it failed with (meta included). */
export type CallResult = { ok: true; outcome: Outcome<unknown> } | { ok: false; error: PetStoreError };

/** What a codec makes of a request under its prefix. */
export type CodecMatch<Plan> =
  /** Calls into the core (one for REST, one or a batch for tRPC), encoded together by `encode`. */
  | { kind: 'calls'; route: string; calls: readonly CodecCall[]; plan: Plan }
  /** A resource that needs no key and counts nothing (the OpenAPI document, the docs page, a probe). */
  | {
      kind: 'resource';
      route: string;
      /**
       * `headers` are what every answer carries (request id, CORS): a resource that writes its own response
       * (`'answered'`) must send them; a returned response gets them added.
       */
      serve: (ctx: RequestContext, headers: Record<string, string>) => Promise<StandardResponse | 'answered'> | StandardResponse;
    }
  /**
   * A batch that another library's handler answers (tRPC's streamed batches), as one request exactly as a batch of
   * `calls`: admitted once (without a valid key refused once, encoded by `encodeError`); its first call runs before
   * the handover (its input read within the body's bounds), and when it is refused with 429 the others are refused
   * without running, counted together, and the batch gets that one 429. Else it is handed over with the batch, whose
   * first call answers what it answered, and `headers`: what every answer carries (request id, CORS) and the first
   * call's rate-limit headers.
   */
  | {
      kind: 'delegated';
      route: string;
      calls: readonly CodecCall[];
      serve: (ctx: RequestContext, headers: Record<string, string>, batch: Batch) => Promise<StandardResponse | 'answered'> | StandardResponse;
    }
  /** A refusal of the request as a whole (405, a malformed batch): counted against the caller, then encoded. */
  | { kind: 'refuse'; route: string; error: PetStoreError; allow?: string | undefined }
  /** No such path: 404 (counted), or the host's next handler when there is one. */
  | { kind: 'missing' };

/**
 * A wire format on the one pipeline: where its paths start, how a request becomes calls, and how results and errors
 * become a response. It owns nothing else (no keys, quotas, context or headers of its own).
 * @example const pipeline = createPipeline({ store, codecs: [restCodec, trpcCodec] })
 */
export interface Codec<Plan = unknown> {
  /** The path segment the codec answers under, relative to the handler's base path: `/v1`, `/trpc`. */
  readonly prefix: string;
  /** Matches a request; `path` is relative to the prefix (`/pets/7`), `query` the raw query string. */
  match(request: StandardRequest, path: string, query: string, ctx: RequestContext): CodecMatch<Plan>;
  /** The methods a path allows, for `Allow` and CORS preflights; undefined for a path the codec does not know. */
  allows(path: string, query: string): string | undefined;
  /** The response to the results of a match's calls, in order. */
  encode(plan: Plan, results: readonly CallResult[], ctx: RequestContext): StandardResponse;
  /** The response to a failure of the request as a whole. */
  encodeError(error: PetStoreError, ctx: RequestContext): StandardResponse;
}
