import { parse, type ParsedUrlQuery } from 'node:querystring';
import { operations, PetStoreError, type OperationDefinition, type OperationId, type PetStore } from '@petstore/core';
import {
  errorResponse,
  jsonResponse,
  createJsonText,
  readJsonBody,
  responseHeaders,
  type Codec,
  type Edge,
  type Links,
  type RequestContext,
  type StandardRequest,
} from '@petstore/http';
import { docsRoutes } from './docs.js';
import { httpInput } from './http-input.js';
import { inputSources } from './input-sources.js';
import { nextPageUrl } from './links.js';
import { bodyWithPath } from './path-fields.js';
import { createOpenApiDocument } from './openapi/create-openapi-document.js';
import type { OpenApiContact } from './openapi/document-types.js';
import { cacheOpenApiDocument, openApiResource } from './openapi/openapi-endpoint.js';
import { metered } from './served-asset.js';
import type { RestResource } from './rest-resource.js';
import { createRouter, type RouteDefinition } from './router.js';

/** What {@link createRestCodec} is built from. */
export interface RestCodecOptions {
  /** Where the REST API sits under the handler's base path; default '/v1'. */
  prefix?: string;
  /** The handler's base path (`/petstore`), for links and the document's servers. Default ''. */
  basePath?: string;
  /** Serve `openapi.json` and the docs page under the prefix (no key needed); default true. */
  docs?: boolean;
  /** The edge of the pipeline, for the document's servers. */
  edge: Edge;
  /** The operator's contact, named by the OpenAPI document (`info.contact`); absent by default. */
  contact?: OpenApiContact | undefined;
  /**
   * The store the docs are counted with (`meter`): a request for `openapi.json`, the docs page or its assets counts against the
   * client's address as any request without a key does, and is refused with its 429 over the limit. Unset: not counted.
   */
  store?: Pick<PetStore, 'meter'> | undefined;
}

export type { RestResource } from './rest-resource.js';

type Route =
  | {
      kind: 'operation';
      label: string;
      operationId: OperationId;
      op: OperationDefinition;
      readInput: (request: StandardRequest, params: Record<string, string>, query: string, plan: Plan) => () => unknown;
      createdPath: string | undefined;
      /** Whether `If-None-Match` may answer it with 304: a conditional read. */
      revalidates: boolean;
    }
  | { kind: 'resource'; label: string; serve: RestResource };

/** What one request's encoding needs: its route, and the query it was read with (for the next page's link). */
interface Plan {
  route: Extract<Route, { kind: 'operation' }>;
  query: ParsedUrlQuery | undefined;
}

/** Where a created resource can be fetched: `${path}/` when a GET operation serves `${path}/{id}`. */
function createdPathOf(operation: OperationDefinition): string | undefined {
  if (operation.successStatus !== 201) return undefined;
  const prefix = `${operation.path}/`;
  const isItemOf = (other: OperationDefinition) =>
    other.method === 'GET' && other.path.startsWith(prefix) && /^\{[^/{}]+\}$/.test(other.path.slice(prefix.length));
  return Object.values(operations).some(isItemOf) ? prefix : undefined;
}

/**
 * How REST reads an operation's input: path placeholders, then the query (GET, DELETE; a query parameter naming a
 * path field is ignored, as any unknown one) or the JSON body (which must not repeat a path field).
 */
function inputReader(op: OperationDefinition): Extract<Route, { kind: 'operation' }>['readInput'] {
  const sources = inputSources(op);
  const fromStrings = httpInput(op.input);
  if (sources.body) {
    if (sources.path.length === 0) return (request) => () => readJsonBody(request);
    return (request, params) => async () => bodyWithPath(op.input, sources.path, fromStrings(params), await readJsonBody(request));
  }
  return (_request, params, query, plan) => () => {
    const input = fromStrings((plan.query = parse(query)));
    return sources.path.length === 0 ? input : { ...input, ...fromStrings(params) };
  };
}

/**
 * REST under `/v1` as a codec of the pipeline: the operations' routes (paths and query strings, JSON bodies), the
 * Error body, `Location` and the `Link` header; `openapi.json` and the docs page beside them.
 * @example createPipeline({ store, codecs: [createRestCodec({ edge })] })
 */
export function createRestCodec(options: RestCodecOptions): Codec<Plan> {
  const prefix = options.prefix ?? '/v1';
  const jsonText = createJsonText();
  const apiBase = `${options.basePath ?? ''}${prefix}`;
  const routes: RouteDefinition<Route>[] = (Object.entries(operations) as [OperationId, OperationDefinition][]).map(
    ([operationId, op]) => ({
      method: op.method,
      path: op.path,
      endpoint: {
        kind: 'operation',
        label: `${apiBase}${op.path}`,
        operationId,
        op,
        readInput: inputReader(op),
        createdPath: createdPathOf(op),
        revalidates: op.conditional === true && !op.writes,
      },
    }),
  );
  if (options.docs !== false) {
    const document = cacheOpenApiDocument((document) => createOpenApiDocument({ ...document, contact: options.contact }), (request) => options.edge.servers(request, apiBase));
    const resource = (path: string, serve: RestResource): Route => ({ kind: 'resource', label: `${apiBase}${path}`, serve });
    // As any request: against a valid key (the address rule applied first), else against the address; never refused for want of a key.
    const meter = options.store && ((ctx: RequestContext) => options.store!.meter(ctx, 1, { answered: 'served' }));
    routes.push({ method: 'GET', path: '/openapi.json', endpoint: resource('/openapi.json', metered(openApiResource(document), meter)) });
    for (const docs of docsRoutes(document, meter)) routes.push({ ...docs, endpoint: resource('/docs', docs.endpoint) });
  }
  const router = createRouter(routes);

  const encodeError = (error: PetStoreError, ctx: RequestContext) =>
    errorResponse(error, error.meta.deprecation ? { baseUrl: ctx.linkBase(apiBase) } : undefined);

  return {
    prefix,
    match(request, path, query) {
      const match = router.match(request.method, path);
      if (match === undefined) return { kind: 'missing' };
      if (match.endpoint === undefined) {
        return { kind: 'refuse', route: `${apiBase}${match.path}`, error: new PetStoreError('method_not_allowed'), allow: match.allow };
      }
      const route = match.endpoint;
      if (route.kind === 'resource') return { kind: 'resource', route: route.label, serve: (ctx) => route.serve(request, ctx) };
      const plan: Plan = { route, query: undefined };
      const readInput = route.readInput(request, match.params, query, plan);
      const ifNoneMatch = route.revalidates ? request.header('if-none-match') : undefined;
      return { kind: 'calls', route: route.label, calls: [{ operationId: route.operationId, readInput, ifNoneMatch }], plan };
    },
    allows(path) {
      const match = router.match('OPTIONS', path);
      return match?.endpoint === undefined ? match?.allow : undefined;
    },
    encode({ route, query }, [result], ctx) {
      if (!result!.ok) return encodeError(result!.error, ctx);
      const { data, meta } = result!.outcome;
      const links: Links = {};
      let location: string | undefined;
      // A 304 carries no page link: it is metadata of the answer the client holds already (RFC 9110 15.4.5).
      const nextCursor = meta.notModified ? undefined : meta.nextCursor;
      if (meta.deprecation || nextCursor !== undefined || route.createdPath !== undefined) {
        const baseUrl = ctx.linkBase(apiBase);
        links.baseUrl = baseUrl;
        if (nextCursor !== undefined) links.nextUrl = nextPageUrl(baseUrl, route.op.path, query ?? {}, nextCursor);
        if (route.createdPath !== undefined) location = `${baseUrl}${route.createdPath}${(data as { id: number }).id}`;
      }
      const headers = responseHeaders(meta, links);
      if (location !== undefined) headers['location'] = location;
      // A read with an ETag may be kept by the client's own cache, and revalidated before each use (`If-None-Match`).
      if (route.revalidates && meta.etag !== undefined) headers['cache-control'] = 'private, no-cache';
      if (meta.notModified) return { status: 304, headers, body: undefined };
      if (route.op.successStatus === 204) return { status: 204, headers, body: undefined };
      return jsonResponse(route.op.successStatus, jsonText(data), headers);
    },
    encodeError,
  };
}
