import type { PetStore } from '@petstore/core';
import { createEdge, createPipeline, normalizeBasePath, toNodeHandler, type NodeHandler, type SurfaceOptions } from '@petstore/http';
import { createTrpcCodec } from './trpc-codec.js';

/** What {@link createTrpcHandler} is built from. */
export interface TrpcHandlerOptions extends SurfaceOptions {
  store: PetStore;
  /** Where the tRPC API is mounted; default '/trpc'. */
  basePath?: string;
  /** Where the REST API is mounted beside it, for successor links of deprecated procedures; default '/v1'. */
  restBasePath?: string;
}

/**
 * The tRPC API alone as a `node:http` handler, on the one pipeline (see {@link createTrpcCodec}).
 * @example http.createServer(createTrpcHandler({ store })).listen(3000)
 */
export function createTrpcHandler(options: TrpcHandlerOptions): NodeHandler {
  const { basePath = '/trpc', restBasePath = '/v1', ...rest } = options;
  const codec = createTrpcCodec({ store: rest.store, prefix: normalizeBasePath(basePath), restPrefix: normalizeBasePath(restBasePath) });
  return toNodeHandler(createPipeline({ ...rest, edge: createEdge(rest), codecs: [codec] }));
}
