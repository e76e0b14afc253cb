import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetStore } from '@petstore/core';
import { createHttpHandler, type HttpHandlerOptions } from './create-http-handler.js';

/**
 * What the plugin uses of a Fastify instance (Fastify 4 and 5 have it all), typed by shape so that the package needs
 * no Fastify: the scope's prefix, its content-type parsers and a catch-all route.
 */
export interface FastifyScope {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): unknown;
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): unknown }) => void): unknown;
}

/** A Fastify plugin of the whole HTTP surface, for `app.register(plugin, { prefix })`. */
export type FastifyPlugin = (scope: FastifyScope, options: unknown) => Promise<void>;

/**
 * The whole HTTP surface as a Fastify plugin: in the scope it is registered in (and only there), Fastify parses no
 * bodies, so the store reads its own, and every path under the prefix is handed to the store's handler, which answers
 * it. `basePath` is the scope's prefix unless given. The host's own routes elsewhere keep their parsers.
 * @example await app.register(createFastifyPlugin(store), { prefix: '/petstore' })
 */
export function createFastifyPlugin(store: PetStore, options: HttpHandlerOptions = {}): FastifyPlugin {
  return async (scope) => {
    const handler = createHttpHandler(store, { ...options, basePath: options.basePath ?? scope.prefix });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const serve = (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): unknown }) => {
      // The reply is the store's to write from here on.
      reply.hijack();
      handler(request.raw, reply.raw);
    };
    scope.all('/', serve);
    scope.all('/*', serve);
  };
}
