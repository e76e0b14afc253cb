import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError, type PetStore } from '@petstore/core';
import { createEdge, sendError, sendJson, splitTarget, type Edge, type EdgeOptions } from '@petstore/http';
import { createRestHandler } from '@petstore/rest';
import { createTrpcHandler } from '@petstore/trpc';

export type { HostRedirect } from '@petstore/http';

/** Where the service is published, whom it trusts, and who hears of errors. */
export interface HttpHandlerOptions extends EdgeOptions {
  /** Told of every error answered by REST or tRPC, with its cause and the request (for logging 500s). */
  onError?: ((error: PetStoreError, req: IncomingMessage) => void) | undefined;
}

/** The mountable handler, with the edge it answers through (for layers that wrap it, such as logs). */
export type HttpHandler = ((req: IncomingMessage, res: ServerResponse) => void) & { readonly edge: Edge };

const OK = JSON.stringify({ status: 'ok' });

/**
 * The whole HTTP surface of the service as one `node:http` handler: REST under `/v1` (with `/v1/openapi.json` and
 * `/v1/docs`), tRPC under `/trpc`, `GET /healthz` (readiness: 200 while the database answers, 503 when it does
 * not) and `GET /livez` (liveness: 200 while the process serves). Host redirects come first; every response
 * carries an `X-Request-Id`.
 * @example http.createServer(createHttpHandler(store, { publicUrl: 'https://api.example.com/v1' })).listen(3000)
 */
export function createHttpHandler(store: PetStore, options: HttpHandlerOptions = {}): HttpHandler {
  const { onError } = options;
  const edge = createEdge(options);
  const rest = createRestHandler({ store, basePath: '/v1', edge, ...(onError ? { onError } : {}) });
  const trpc = createTrpcHandler({ store, basePath: '/trpc', restBasePath: '/v1', edge, ...(onError ? { onError } : {}) });

  const probe = (req: IncomingMessage, res: ServerResponse, check: () => Promise<boolean>) => {
    const ctx = edge.context(req);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendError(res, ctx, new PetStoreError('method_not_allowed'));
    }
    check().then(
      (ok) => (ok ? sendJson(res, 200, OK) : sendError(res, ctx, new PetStoreError('unavailable'))),
      () => sendError(res, ctx, new PetStoreError('unavailable')),
    );
  };
  const ready = () => store.isHealthy();
  const live = async () => true;

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const ctx = edge.context(req);
    if (edge.redirect(req, res)) return;
    const { path } = splitTarget(req.url);
    if (path === '/v1' || path.startsWith('/v1/')) return rest(req, res);
    if (path === '/trpc' || path.startsWith('/trpc/')) return trpc(req, res);
    if (path === '/healthz' || path === '/livez') {
      ctx.route = path;
      return probe(req, res, path === '/healthz' ? ready : live);
    }
    sendError(res, ctx, new PetStoreError('not_found'));
  };
  return Object.assign(handler, { edge });
}
