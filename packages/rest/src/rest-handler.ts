import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerToken,
  operations,
  PetStoreError,
  toPetStoreError,
  type OperationDefinition,
  type OperationId,
  type PetStore,
} from '@petstore/core';
import { docsRoutes } from './docs.js';
import type { Endpoint } from './endpoint.js';
import { defaultBaseUrl } from './links.js';
import { cacheOpenApiDocument, createOpenApiEndpoint } from './openapi-endpoint.js';
import { createOperationEndpoint, type OperationSite } from './operation-endpoint.js';
import { discardBody } from './read-json-body.js';
import { splitTarget } from './request-target.js';
import { createRouter, type RouteDefinition } from './router.js';
import { sendError } from './send.js';

/** What {@link createRestHandler} is built from. */
export interface RestHandlerOptions {
  store: PetStore;
  /** Where the API lives; default '/v1'. */
  basePath?: string;
  /**
   * The OpenAPI document served at `${basePath}/openapi.json` (no key needed), given the request's base address.
   * Called lazily, once per base address; the result is serialised once.
   */
  openApiDocument?: (baseUrl: string) => object;
  /** Absolute base address (ending in basePath) for links; default derived per request from the Host header: `http://${host}${mount}${basePath}`. */
  publicBaseUrl?: (req: IncomingMessage) => string;
  /** Client address for the per-address limit; default req.socket.remoteAddress. */
  clientAddress?: (req: IncomingMessage) => string | undefined;
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

function operationRoutes(site: OperationSite): RouteDefinition<Endpoint>[] {
  return (Object.entries(operations) as [OperationId, OperationDefinition][]).map(([operationId, operation]) => ({
    method: operation.method,
    path: operation.path,
    endpoint: createOperationEndpoint(site, operationId, operation, createdPathOf(operation)),
  }));
}

/**
 * The REST API as a plain `node:http` handler: the operations under the base path, `/openapi.json` and `/docs`.
 * @example http.createServer(createRestHandler({ store })).listen(3000) // or app.use('/petstore', handler)
 */
export function createRestHandler(options: RestHandlerOptions): NodeHandler {
  const { store, openApiDocument, publicBaseUrl, clientAddress, onError } = options;
  const basePath = normalizeBasePath(options.basePath ?? '/v1');
  const site: OperationSite = Object.freeze({
    store,
    baseUrl: publicBaseUrl ?? ((req: IncomingMessage) => defaultBaseUrl(req, basePath)),
    clientAddress: clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress),
  });
  const routes = operationRoutes(site);
  if (openApiDocument) {
    const document = cacheOpenApiDocument(openApiDocument, site.baseUrl);
    routes.push({ method: 'GET', path: '/openapi.json', endpoint: createOpenApiEndpoint(document) }, ...docsRoutes(document));
  }
  const router = createRouter(routes);

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    const failure = toPetStoreError(error);
    onError?.(failure, req);
    discardBody(req, res);
    sendError(res, failure, () => site.baseUrl(req));
  };

  /** Answers 404, or 405 with `Allow`, after counting the request against the caller's quota. */
  const refuse = async (req: IncomingMessage, res: ServerResponse, allow?: string) => {
    const meta = await store.meter({
      apiKey: bearerToken(req.headers.authorization),
      clientAddress: site.clientAddress(req),
    });
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
    const match = inside ? router.match(req.method ?? 'GET', path.slice(basePath.length)) : undefined;
    let pending: void | Promise<void>;
    try {
      pending =
        match === undefined
          ? refuse(req, res)
          : match.endpoint === undefined
            ? refuse(req, res, match.allow)
            : match.endpoint(req, res, match.params, query);
    } catch (error) {
      fail(req, res, error);
      return;
    }
    if (pending) pending.then(undefined, (error: unknown) => fail(req, res, error));
  };
}
