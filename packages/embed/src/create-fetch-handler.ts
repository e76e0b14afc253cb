import type { PetStore } from '@petstore/core';
import { toFetchHandler, type FetchBodyOptions, type FetchConnection } from '@petstore/http';
import { createServicePipeline, type HandlerOptions } from './create-pipeline.js';

/** A Fetch handler: a `Request` (and, where the runtime knows it, the client's address) to a `Response`. */
export type FetchHandler = (request: Request, connection?: FetchConnection) => Promise<Response>;

/**
 * The whole HTTP surface as a Fetch handler, for Next.js route handlers, Hono, Bun, Deno and Workers-style runtimes.
 * Give `basePath` when it is mounted under a path. Without a client address (the second argument), requests without
 * a valid key share one per-address limit. `bodyTimeoutMs` (10 s) and `maxBodyPieces` (256) bound how a body is read.
 * @example const handler = createFetchHandler(store, { basePath: '/petstore' }); app.all('/petstore/*', (c) => handler(c.req.raw))
 */
export function createFetchHandler(store: PetStore, options: HandlerOptions & FetchBodyOptions = {}): FetchHandler {
  return toFetchHandler(createServicePipeline(store, options), { bodyTimeoutMs: options.bodyTimeoutMs, maxBodyPieces: options.maxBodyPieces });
}
