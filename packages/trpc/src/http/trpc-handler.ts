import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import { PetStoreError, type PetStore, type ResponseMeta } from '@petstore/core';
import {
  BODY_LIMIT,
  createEdge,
  discardBody,
  isJsonMediaType,
  jsonText,
  readJsonBody,
  responseHeaders,
  sendJson,
  splitTarget,
  trpcErrorShape,
  type Edge,
  type EdgeOptions,
  type Links,
  type RequestContext,
} from '@petstore/http';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { appRouter } from '../app-router.js';
import type { Context } from '../context.js';
import { petStoreErrorOf } from '../errors/error-mapping.js';
import { nextPageUrl, procedureAt, type ProcedureDefinition } from '../procedures.js';

/** What {@link createTrpcHandler} is built from. */
export interface TrpcHandlerOptions extends EdgeOptions {
  store: PetStore;
  /** Where the tRPC API is mounted; default '/trpc'. */
  basePath?: string;
  /** Where the REST API is mounted beside it, for successor links of deprecated procedures; default '/v1'. */
  restBasePath?: string;
  /** The edge to share with other handlers of the same server; built from the other options when absent. */
  edge?: Edge;
  /** Called with every error answered, e.g. to log `internal_error`s with their cause. */
  onError?: (error: PetStoreError, req: IncomingMessage) => void;
}

/** One call of a request: a procedure path, its definition (if any) and its place in a batch. */
interface Call {
  path: string;
  procedure: ProcedureDefinition | undefined;
  index: number;
}

type Answer = { ok: true; json: string; meta: ResponseMeta } | { ok: false; error: PetStoreError };

const ALLOW = 'GET, POST';
const METHOD_OF = { query: 'GET', mutation: 'POST' } as const;

const decoded = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
};

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Reads a batch's or a call's input once: the `input` query parameter of a GET, the JSON body of a POST. */
function inputReader(req: IncomingMessage, res: ServerResponse, query: Record<string, string | string[] | undefined>) {
  let inputs: Promise<unknown> | undefined;
  return () =>
    (inputs ??= (async () => {
      if (req.method === 'POST') return readJsonBody(req, res);
      const text = first(query['input']);
      if (!text) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new PetStoreError('malformed_json', 'The input parameter is not valid JSON.', { cause: error });
      }
    })());
}

/**
 * Whether a batch asks for a streamed answer (`trpc-accept: application/jsonl`, as httpBatchStreamLink sends) that
 * tRPC's own handler can give without failing the request as a whole: every call a procedure taking the method, and
 * a JSON body if any. Anything else is answered by the fast path, with JSON errors.
 */
function streamable(req: IncomingMessage, calls: readonly Call[]): boolean {
  if (first(req.headers['trpc-accept']) !== 'application/jsonl') return false;
  const method = req.method;
  if (!calls.every((call) => METHOD_OF[call.procedure!.type] === method)) return false;
  // tRPC picks its reader by `Content-Type` even on a GET (octet-stream or form data refuse a query, in plain text),
  // so only JSON, or no type at all on a GET, goes to it.
  const contentType = first(req.headers['content-type']);
  const json = contentType === undefined ? method === 'GET' : isJsonMediaType(contentType);
  return json && req.headers['content-encoding'] === undefined;
}

/**
 * The tRPC API as a `node:http` handler for requests under `basePath` (`/trpc/pets.list?input=…`). It speaks tRPC's
 * HTTP protocol for the service's procedures itself (GET queries, POST mutations, single and batched, the result
 * and error envelopes) and runs each call through the core's one entry, as REST does; a streaming request
 * (`trpc-accept: application/jsonl`) goes to tRPC's own handler. As DECISIONS "tRPC at the edges" says: other
 * methods get 405, a path naming no procedure 404, a body that is not JSON 415, and no client mistake is a 5xx.
 * @example http.createServer(createTrpcHandler({ store })).listen(3000)
 */
export function createTrpcHandler(options: TrpcHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, basePath = '/trpc', restBasePath = '/v1', onError } = options;
  const edge = options.edge ?? createEdge(options);

  const failed = (req: IncomingMessage, error: unknown) => {
    const failure = petStoreErrorOf(error);
    onError?.(failure, req);
    return failure;
  };

  function headersOf(ctx: RequestContext, meta: ResponseMeta, nextUrl?: string): Record<string, string> {
    const links: Links = meta.deprecation ? { baseUrl: ctx.linkBase(restBasePath) } : {};
    if (nextUrl !== undefined) links.nextUrl = nextUrl;
    const headers = responseHeaders(meta, links);
    headers['vary'] = 'trpc-accept, accept';
    return headers;
  }

  /** Answers a failure of the request as a whole (method, no procedure, quota): one error envelope. */
  function refuse(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, error: unknown, allow?: string) {
    const failure = failed(req, error);
    if (failure.meta.keyId !== undefined) ctx.keyId = failure.meta.keyId;
    const headers = headersOf(ctx, failure.meta);
    if (allow !== undefined) headers['allow'] = allow;
    discardBody(req, res);
    sendJson(res, failure.status, JSON.stringify({ error: trpcErrorShape(failure) }), headers);
  }

  async function answer(call: Call, method: string, read: () => Promise<unknown>, ctx: RequestContext) {
    const { procedure } = call;
    if (procedure === undefined) {
      return new PetStoreError('not_found', `No procedure found on path "${call.path}".`);
    }
    if (METHOD_OF[procedure.type] !== method) {
      return new PetStoreError(
        'method_not_allowed',
        `Unsupported ${method}-request to ${procedure.type} procedure at path "${call.path}".`,
      );
    }
    let input: unknown;
    const readInput = async () => (input = await read());
    const outcome = await store.call(procedure.operationId, readInput, ctx);
    return { outcome, input };
  }

  async function serve(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, target: string, query: string) {
    const method = req.method ?? 'GET';
    const params = parse(query);
    const batch = first(params['batch']) === '1';
    const calls: Call[] = (batch ? target.split(',') : [target]).map((path, index) => ({
      path,
      procedure: target === '' ? undefined : procedureAt(path),
      index,
    }));
    const known = calls.every((call) => call.procedure !== undefined);
    if (known) ctx.route = batch ? `${basePath}/{batch}` : `${basePath}/${target}`;
    if (batch && known && streamable(req, calls)) {
      ctx.route = `${basePath}/{stream}`;
      return delegate(req, res, ctx, target);
    }
    if (method !== 'GET' && method !== 'POST') {
      const meta = await store.meter(ctx);
      refuse(req, res, ctx, new PetStoreError('method_not_allowed', `Unsupported ${method}-request.`, { meta }), ALLOW);
      return;
    }
    if (calls.every((call) => call.procedure === undefined)) {
      const meta = await store.meter(ctx);
      throw new PetStoreError('not_found', `No procedure found on path "${target}".`, { meta });
    }
    const single = calls.length === 1 ? calls[0]!.procedure : undefined;
    if (single && METHOD_OF[single.type] !== method) {
      const meta = await store.meter(ctx);
      const message = `Unsupported ${method}-request to ${single.type} procedure at path "${target}".`;
      refuse(req, res, ctx, new PetStoreError('method_not_allowed', message, { meta }), METHOD_OF[single.type]);
      return;
    }
    const readAll = inputReader(req, res, params);
    const read = batch
      ? async (index: number) => {
          const inputs = await readAll();
          if (inputs === undefined) return undefined;
          if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs)) {
            throw new PetStoreError('invalid_request', '"input" needs to be an object when doing a batch call.', {
              details: [{ path: 'input', message: 'must be an object keyed by call index' }],
            });
          }
          return (inputs as Record<string, unknown>)[String(index)];
        }
      : async () => readAll();

    const nextUrls: (string | undefined)[] = [];
    const answers: Answer[] = await Promise.all(
      calls.map(async (call): Promise<Answer> => {
        try {
          const result = await answer(call, method, () => read(call.index), ctx);
          if (result instanceof PetStoreError) return { ok: false, error: failed(req, result) };
          const { outcome, input } = result;
          const data = call.procedure!.result(outcome);
          const cursor = call.procedure!.linksNextPage ? outcome.meta.nextCursor : undefined;
          if (cursor !== undefined) nextUrls[call.index] = nextPageUrl(ctx.linkBase(basePath), call.path, input, cursor);
          return { ok: true, json: `{"result":{"data":${jsonText(data)}}}`, meta: outcome.meta };
        } catch (error) {
          return { ok: false, error: failed(req, error) };
        }
      }),
    );
    const nextUrl = nextUrls.findLast((url) => url !== undefined);

    const meta: ResponseMeta = {};
    const statuses = new Set<number>();
    const bodies = answers.map((one, index) => {
      if (one.ok) {
        Object.assign(meta, one.meta);
        statuses.add(200);
        return one.json;
      }
      Object.assign(meta, one.error.meta);
      statuses.add(one.error.status);
      return JSON.stringify({ error: trpcErrorShape(one.error, calls[index]!.path) });
    });
    if (meta.keyId !== undefined) ctx.keyId = meta.keyId;
    const status = statuses.size === 1 ? statuses.values().next().value! : 207;
    discardBody(req, res);
    sendJson(res, status, batch ? `[${bodies.join(',')}]` : bodies[0]!, headersOf(ctx, meta, nextUrl));
  }

  /** tRPC's own handler, for what the fast path does not serve (streaming batches). */
  function delegate(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, target: string) {
    const context: Context = { store, request: ctx, trpcUrl: ctx.linkBase(basePath), response: { meta: {} } };
    res.setHeader('x-request-id', ctx.requestId);
    void nodeHTTPRequestHandler({
      router: appRouter,
      req,
      res,
      path: target,
      maxBodySize: BODY_LIMIT,
      createContext: () => context,
      responseMeta: ({ errors }) => {
        const meta = Object.assign({}, context.response.meta, ...errors.map((error) => petStoreErrorOf(error).meta));
        return { headers: new Headers(headersOf(ctx, meta, context.response.nextUrl)) };
      },
      onError: ({ error }) => void failed(req, error),
    });
  }

  return (req, res) => {
    const ctx = edge.context(req);
    const { path, query } = splitTarget(req.url);
    const target = path.length > basePath.length + 1 ? decoded(path.slice(basePath.length + 1)) : '';
    serve(req, res, ctx, target, query).catch((error: unknown) => refuse(req, res, ctx, error));
  };
}
