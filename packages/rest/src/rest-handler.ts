import type { PetStore } from '@petstore/core';
import { createEdge, createPipeline, normalizeBasePath, toNodeHandler, type NodeHandler, type SurfaceOptions } from '@petstore/http';
import type { OpenApiContact } from './openapi/document-types.js';
import { createRestCodec } from './rest-codec.js';

/** What {@link createRestHandler} is built from. */
export interface RestHandlerOptions extends SurfaceOptions {
  store: PetStore;
  /** Where the API lives, as the handler sees paths; default '/v1'. */
  basePath?: string;
  /** Serve `${basePath}/openapi.json` and the docs at `${basePath}/docs` (no key needed); default true. */
  docs?: boolean;
  /** The operator's contact, named by the OpenAPI document (`info.contact`); absent by default. */
  contact?: OpenApiContact | undefined;
}

/**
 * The REST API alone as a `node:http` handler, on the one pipeline: the operations under the base path,
 * `/openapi.json` and `/docs`. With Express's `next`, paths it does not serve go on to the host.
 * @example http.createServer(createRestHandler({ store })).listen(3000) // or app.use('/petstore', handler)
 */
export function createRestHandler(options: RestHandlerOptions): NodeHandler {
  const { basePath = '/v1', docs, contact, ...rest } = options;
  const edge = createEdge(rest);
  const codec = createRestCodec({ prefix: normalizeBasePath(basePath), edge, docs: docs !== false, contact, store: options.store });
  return toNodeHandler(createPipeline({ ...rest, edge, codecs: [codec] }));
}
