import type { IncomingMessage, ServerResponse } from 'node:http';
import { operations, PetStoreError, toPetStoreError, type OperationDefinition, type OperationId, type PetStore } from '@petstore/core';
import { createEdge, discardBody, sendError, splitTarget, type Edge, type EdgeOptions, type RequestContext } from '@petstore/http';
import { docsRoutes } from './docs.js';
import type { Endpoint } from './endpoint.js';
import { createOpenApiDocument } from './openapi/create-openapi-document.js';
import { cacheOpenApiDocument, createOpenApiEndpoint } from './openapi/openapi-endpoint.js';
import { createOperationEndpoint } from './operation-endpoint.js';
import { createRouter, type RouteDefinition } from './router.js';

/** What {@link createRestHandler} is built from. */
export interface RestHandlerOptions extends EdgeOptions {
  store: PetStore;
  /** Where the API lives, as `req.url` shows it; default '/v1'. */
  basePath?: string;
  /**
   * Serve the OpenAPI document at `${basePath}/openapi.json` and the human docs at `${basePath}/docs` (no key
   * needed); default true.
   */
  docs?: boolean;
  /** The edge to share with other handlers of the same server; built from the other options when absent. */
  edge?: Edge;
  /** Told of every error answered, with its cause (for logging 500s). */
  onError?: (error: PetStoreError, req: IncomingMessage) => void;
}

/** A `node:http` request handler; `next`, when given (Express), receives requests outside the base path. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Where a created resource can be fetched: `${path}/` when a GET operation serves `${path}/{id}`. */
function createdPathOf(operation: OperationDefinition): string | undefined {
  if (operation.successStatus !== 201) return undefined;
  const prefix = `${operation.path}/`;
  const isItemOf = (other: OperationDefinition) =>
    other.method === 'GET' && other.path.startsWith(prefix) && /^\{[^/{}]+\}$/.test(other.path.slice(prefix.length));
  return Object.values(operations).some(isItemOf) ? prefix : undefined;
}

/** The route of one endpoint, with the label its requests carry in logs and metrics. */
interface Route {
  endpoint: Endpoint;
  label: string;
}

/**
 * The REST API as a plain `node:http` handler: the operations under the base path, `/openapi.json` and `/docs`.
 * @example http.createServer(createRestHandler({ store })).listen(3000) // or app.use('/petstore', handler)
 */
export function createRestHandler(options: RestHandlerOptions): NodeHandler {
  const { store, onError } = options;
  const basePath = normalizeBasePath(options.basePath ?? '/v1');
  const edge = options.edge ?? createEdge(options);
  const route = (path: string, endpoint: Endpoint): Route => ({ endpoint, label: `${basePath}${path}` });
  const routes: RouteDefinition<Route>[] = (Object.entries(operations) as [OperationId, OperationDefinition][]).map(
    ([operationId, operation]) => ({
      method: operation.method,
      path: operation.path,
      endpoint: route(
        operation.path,
        createOperationEndpoint(store, operationId, operation, basePath, createdPathOf(operation)),
      ),
    }),
  );
  if (options.docs !== false) {
    const document = cacheOpenApiDocument(createOpenApiDocument, (req) => edge.servers(req, basePath));
    routes.push({ method: 'GET', path: '/openapi.json', endpoint: route('/openapi.json', createOpenApiEndpoint(document)) });
    for (const docs of docsRoutes(document)) {
      routes.push({ ...docs, endpoint: route('/docs', docs.endpoint) });
    }
  }
  const router = createRouter(routes);

  /** Answers 404, or 405 with `Allow`, after counting the request against the caller's quota. */
  const refuse = async (ctx: RequestContext, res: ServerResponse, allow?: string) => {
    const meta = await store.meter(ctx);
    if (allow !== undefined) res.setHeader('allow', allow);
    throw new PetStoreError(allow === undefined ? 'not_found' : 'method_not_allowed', undefined, { meta });
  };

  return function restHandler(req, res, next) {
    const { path, query } = splitTarget(req.url);
    const inside =
      path.startsWith(basePath) && (path.length === basePath.length || path.charCodeAt(basePath.length) === 47);
    if (!inside && next) {
      next();
      return;
    }
    const ctx = edge.context(req);
    const fail = (error: unknown) => {
      const failure = toPetStoreError(error);
      if (failure.meta.keyId !== undefined) ctx.keyId = failure.meta.keyId;
      onError?.(failure, req);
      discardBody(req, res);
      sendError(res, ctx, failure, basePath);
    };
    const match = inside ? router.match(req.method ?? 'GET', path.slice(basePath.length)) : undefined;
    let pending: void | Promise<void>;
    try {
      if (match === undefined) {
        pending = refuse(ctx, res);
      } else if (match.endpoint === undefined) {
        ctx.route = `${basePath}${match.path}`;
        pending = refuse(ctx, res, match.allow);
      } else {
        ctx.route = match.endpoint.label;
        pending = match.endpoint.endpoint(req, res, ctx, match.params, query);
      }
    } catch (error) {
      fail(error);
      return;
    }
    if (pending) pending.then(undefined, fail);
  };
}
