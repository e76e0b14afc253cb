import type { IncomingMessage } from 'node:http';
import type { PetStore } from '@petstore/core';
import { normalizeBasePath, toFetchHandler, type FetchBodyOptions, type FetchConnection } from '@petstore/http';
import { createServicePipeline, SURFACE_PATHS, type HandlerOptions } from './create-pipeline.js';
import { outsideBasePath } from './outside-base-path.js';

/** A Fetch handler: a `Request` (and, where the runtime knows it, the client's address) to a `Response`. */
export type FetchHandler = (request: Request, connection?: FetchConnection) => Promise<Response>;

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The path of an absolute URL, without parsing the rest of it. */
const pathOf = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(url)?.[1] || '/';

/**
 * What a Hono app on `@hono/node-server` hands a mounted handler as its second argument (`c.env`, its HTTP bindings)
 * when no `optionHandler` is given: the node request, whose `url` still carries the mount's prefix.
 */
const nodeRequestIn = (connection: unknown): IncomingMessage | undefined => {
  const incoming = (connection as { incoming?: { url?: unknown; socket?: unknown } } | null | undefined)?.incoming;
  return incoming && typeof incoming.url === 'string' && typeof incoming.socket === 'object' ? (incoming as IncomingMessage) : undefined;
};

/** The mount's prefix a host cut off the request's path (`/naive` of `/naive/v1/pets` → `/v1/pets`), if it did. */
function cutPrefix(original: string, path: string): string | undefined {
  const full = original.split('?')[0]!;
  return full.startsWith('/') && full !== path && full.endsWith(path) ? full.slice(0, full.length - path.length).replace(/\/+$/, '') : undefined;
}

function prefixCutOff(prefix: string, path: string): TypeError {
  return new TypeError(
    `The Pet Store handler got ${path} with the mount's prefix ${prefix} cut off (Hono's app.mount does so), so its ` +
      `links (Location, Link) and OpenAPI servers would leave ${prefix} out: give createFetchHandler(store, ` +
      `{ basePath: '${prefix}' }).`,
  );
}

/**
 * The whole HTTP surface as a Fetch handler, for Next.js route handlers, Hono, Bun, Deno and Workers-style runtimes.
 * Give `basePath` when it is mounted under a path: a host that cuts that prefix off the request (Hono's `app.mount`)
 * is served as if it had not, and one that cuts it off without `basePath` given (Hono on Node, where the original path
 * is known) is an error naming the fix. Without a client address (the second argument), requests without a valid key
 * share one per-address limit; Hono's `app.mount` on Node gives the socket's. `bodyTimeoutMs` (10 s) and
 * `maxBodyPieces` (256) bound how a body is read. A handler mounted under a prefix it was not given (every request a
 * 404) says so once, naming the `basePath` to give, through `logger` (see outside-base-path.ts).
 * @example const handler = createFetchHandler(store, { basePath: '/petstore' }); app.all('/petstore/*', (c) => handler(c.req.raw))
 */
export function createFetchHandler(store: PetStore, options: HandlerOptions & FetchBodyOptions = {}): FetchHandler {
  const basePath = normalizeBasePath(options.basePath);
  const handler = toFetchHandler(createServicePipeline(store, options), {
    bodyTimeoutMs: options.bodyTimeoutMs,
    maxBodyPieces: options.maxBodyPieces,
  });
  const surface = SURFACE_PATHS.map((own) => `${basePath}${own}`);
  const watch = outsideBasePath(basePath, SURFACE_PATHS, options.logger);
  return async (request, connection) => {
    const node = nodeRequestIn(connection);
    const address = connection?.address ?? node?.socket.remoteAddress;
    const path = pathOf(request.url);
    if (basePath === '' || !isUnder(path, basePath)) {
      const cut = node ? cutPrefix(node.url!, path) : undefined;
      if (cut !== undefined && cut !== basePath) throw prefixCutOff(cut, path);
      if (basePath !== '' && (cut === basePath || SURFACE_PATHS.some((own) => isUnder(path, own)))) {
        const url = new URL(request.url);
        url.pathname = `${basePath}${path}`;
        watch(url.pathname, true);
        return handler(new Request(url, request), { address });
      }
    }
    watch(path, surface.some((own) => isUnder(path, own)));
    return handler(request, { address });
  };
}
