import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetStore } from '@petstore/core';
import { normalizeBasePath, type RequestLogger } from '@petstore/http';
import { createHttpHandler, type HttpHandlerOptions } from './create-http-handler.js';
import { API_PREFIXES, PROBE_PATHS } from './create-pipeline.js';

/** The logger of a Fastify request (pino's shape, which `request.log` has), as the plugin writes to it. */
interface FastifyLog {
  info(fields: object, message: string): void;
  error?(fields: object, message: string): void;
  isLevelEnabled?(level: string): boolean;
}

/** What the plugin uses of a Fastify request: its id and logger, and the node request. */
export interface FastifyRequestLike {
  readonly id: unknown;
  readonly log?: FastifyLog | undefined;
  readonly raw: IncomingMessage;
}

/**
 * What the plugin uses of a Fastify instance (Fastify 4 and 5 have it all), typed by shape so that the package needs
 * no Fastify: the scope's prefix and logger, its content-type parsers and routes.
 */
export interface FastifyScope {
  readonly prefix: string;
  readonly log?: FastifyLog | undefined;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): unknown;
  all(path: string, handler: (request: FastifyRequestLike, reply: { raw: ServerResponse; hijack(): unknown }) => void): unknown;
}

/** A Fastify plugin of the whole HTTP surface, for `app.register(plugin, { prefix })`. */
export type FastifyPlugin = (scope: FastifyScope, options: unknown) => Promise<void>;

/**
 * The request lines of each request to its own `request.log` (which carries Fastify's `reqId` already): the handler's
 * lines name the request by the id the plugin gave it, Fastify's `request.id`.
 */
function requestLogs(fallback: FastifyLog | undefined) {
  const logs = new Map<string, FastifyLog>();
  const write = (level: 'info' | 'error', fields: object, message: string) => {
    const { reqId, ...rest } = fields as { reqId?: unknown };
    const log = typeof reqId === 'string' ? logs.get(reqId) : undefined;
    if (log) (level === 'error' && log.error ? log.error.bind(log) : log.info.bind(log))(rest, message);
    else if (fallback) (level === 'error' && fallback.error ? fallback.error.bind(fallback) : fallback.info.bind(fallback))(fields, message);
  };
  const logger: RequestLogger = {
    info: (fields, message) => write('info', fields, message),
    error: (fields, message) => write('error', fields, message),
    // A host whose Fastify logs nothing at info (its default) spares building the lines.
    isLevelEnabled: (level) => fallback?.isLevelEnabled?.(level) ?? true,
  };
  return {
    logger,
    /** Keeps the request's logger until its lines are written (at the end of the event-loop turn it ends in). */
    track(id: string, log: FastifyLog, res: ServerResponse) {
      logs.set(id, log);
      res.once('close', () => setTimeout(() => logs.delete(id), 1000).unref());
    },
  };
}

/**
 * The whole HTTP surface as a Fastify plugin: in the scope it is registered in (and only there), Fastify parses no
 * bodies, so the store reads its own. The surface's paths under the prefix (`/v1`, `/trpc`, `/healthz`, `/livez`) are
 * the store's; any other path falls through to the host's not-found handler (`setNotFoundHandler`). Each request is
 * named by Fastify's `request.id` (its `X-Request-Id` answer and log lines; Fastify's `requestIdHeader` decides whether
 * a client's id is taken), and its lines go to `request.log` unless a `logger` is given. `basePath` is the scope's
 * prefix unless given. The host's own routes elsewhere keep their parsers.
 * @example await app.register(createFastifyPlugin(store), { prefix: '/petstore' })
 */
export function createFastifyPlugin(store: PetStore, options: HttpHandlerOptions = {}): FastifyPlugin {
  return async (scope) => {
    const prefix = normalizeBasePath(scope.prefix);
    const basePath = normalizeBasePath(options.basePath ?? scope.prefix);
    if (basePath !== prefix && !basePath.startsWith(`${prefix}/`)) {
      throw new TypeError(
        `The Pet Store plugin is registered under prefix ${JSON.stringify(prefix)} but serves under basePath ` +
          `${JSON.stringify(basePath)}, which no request through that prefix can reach: leave basePath out (it is the prefix).`,
      );
    }
    const logs = options.logger ? undefined : requestLogs(scope.log);
    const handler = createHttpHandler(store, { ...options, basePath, ...(logs ? { logger: logs.logger } : {}) });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const serve = (request: FastifyRequestLike, reply: { raw: ServerResponse; hijack(): unknown }) => {
      const id = String(request.id);
      // One id per request, the host's: the handler takes it as the request's X-Request-Id.
      request.raw.headers['x-request-id'] = id;
      if (logs && request.log) logs.track(id, request.log, reply.raw);
      // The reply is the store's to write from here on.
      reply.hijack();
      handler(request.raw, reply.raw);
    };
    // Only the surface's own paths: any other under the prefix is the host's (its not-found handler).
    const within = basePath.slice(prefix.length);
    for (const path of API_PREFIXES) {
      scope.all(`${within}${path}`, serve);
      scope.all(`${within}${path}/*`, serve);
    }
    for (const path of PROBE_PATHS) scope.all(`${within}${path}`, serve);
  };
}
