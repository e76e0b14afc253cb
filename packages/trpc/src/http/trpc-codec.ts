import { parse } from 'node:querystring';
import { PetStoreError, toPetStoreError, type PetStore, type ResponseMeta } from '@petstore/core';
import {
  BODY_LIMIT,
  isJsonMediaType,
  jsonResponse,
  createJsonText,
  readJsonBody,
  responseHeaders,
  type Batch,
  type CallResult,
  type Codec,
  type CodecCall,
  type Links,
  type RequestContext,
  type StandardRequest,
  type StandardResponse,
} from '@petstore/http';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { appResponseMeta, appRouter } from '../app-router.js';
import type { PetsResponseMeta } from '../create-pets-router.js';
import type { Context } from '../context.js';
import { petStoreErrorOf } from '../errors/error-mapping.js';
import { maxBatchSize } from '../max-batch-size.js';
import { trpcErrorShape } from '../errors/trpc-envelope.js';
import { nextPageUrl, procedureAt, type ProcedureDefinition } from '../procedures.js';

/** What {@link createTrpcCodec} is built from. */
export interface TrpcCodecOptions {
  store: PetStore;
  /** Where tRPC sits under the handler's base path; default '/trpc'. */
  prefix?: string;
  /** The handler's base path (`/petstore`), for links. Default ''. */
  basePath?: string;
  /** Where REST sits beside it, for successor links of deprecated procedures; default '/v1'. */
  restPrefix?: string;
}

/** One call of a request: a procedure path, its definition (if any) and its place in a batch. */
interface Call {
  path: string;
  procedure: ProcedureDefinition | undefined;
  index: number;
}

/** What encoding a request needs: its calls, whether it was a batch, and the inputs each call read. */
interface Plan {
  calls: Call[];
  batch: boolean;
  inputs: unknown[];
}

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

const tooLarge = () =>
  new PetStoreError('invalid_request', `A batch holds at most ${maxBatchSize} calls.`, {
    details: [{ path: 'batch', message: `names more than ${maxBatchSize} calls` }],
  });

/** Reads a batch's or a call's input once: the `input` query parameter of a GET, the JSON body of a POST. */
function inputReader(request: StandardRequest, query: Record<string, string | string[] | undefined>) {
  let inputs: Promise<unknown> | undefined;
  return () =>
    (inputs ??= (async () => {
      if (request.method === 'POST') return readJsonBody(request);
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
 * a JSON body if any. Anything else is answered by the codec, with JSON errors.
 */
function streamable(request: StandardRequest, calls: readonly Call[]): boolean {
  if (request.header('trpc-accept') !== 'application/jsonl') return false;
  const method = request.method;
  if (!calls.every((call) => METHOD_OF[call.procedure!.type] === method)) return false;
  // tRPC picks its reader by `Content-Type` even on a GET (octet-stream or form data refuse a query, in plain text),
  // so only JSON, or no type at all on a GET, goes to it.
  const contentType = request.header('content-type');
  const json = contentType === undefined ? method === 'GET' : isJsonMediaType(contentType);
  return json && request.header('content-encoding') === undefined;
}

/**
 * tRPC under `/trpc` as a codec of the pipeline. It speaks tRPC's HTTP protocol for the service's procedures itself
 * (GET queries, POST mutations, single and batched, the result and error envelopes); a streamed batch
 * (`trpc-accept: application/jsonl`) goes to tRPC's own handler. As DECISIONS "tRPC at the edges" says: other methods
 * get 405, a path naming no procedure 404, a body that is not JSON 415, and no client mistake is a 5xx.
 * @example createPipeline({ store, codecs: [createTrpcCodec({ store })] })
 */
export function createTrpcCodec(options: TrpcCodecOptions): Codec<Plan> {
  const { store } = options;
  const jsonText = createJsonText();
  const prefix = options.prefix ?? '/trpc';
  const base = options.basePath ?? '';
  const trpcBase = `${base}${prefix}`;
  const restBase = `${base}${options.restPrefix ?? '/v1'}`;

  function headersOf(ctx: RequestContext, meta: ResponseMeta, nextUrl?: string): Record<string, string> {
    const links: Links = meta.deprecation ? { baseUrl: ctx.linkBase(restBase) } : {};
    if (nextUrl !== undefined) links.nextUrl = nextUrl;
    const headers = responseHeaders(meta, links);
    headers['vary'] = 'trpc-accept, accept';
    return headers;
  }

  const encodeError = (error: PetStoreError, ctx: RequestContext): StandardResponse =>
    jsonResponse(error.status, JSON.stringify({ error: trpcErrorShape(error) }), headersOf(ctx, error.meta));

  /**
   * tRPC's own handler, for what the codec does not serve (streamed batches): with the batch the pipeline admitted
   * (its first call already answered), and the body the codec read (within its bounds in bytes, time and pieces).
   */
  async function delegate(
    request: StandardRequest,
    ctx: RequestContext,
    target: string,
    headers: Record<string, string>,
    batch: Batch,
    readAll: () => Promise<unknown>,
  ) {
    let body: unknown;
    try {
      body = await readAll();
    } catch (error) {
      return encodeError(toPetStoreError(error), ctx);
    }
    const context: Context = { store, request: ctx, trpcUrl: ctx.linkBase(trpcBase), batch };
    const responseMeta: PetsResponseMeta = ({ info, errors }) => {
      const pets = appResponseMeta({ info, errors }).headers;
      const all = new Headers({ ...headersOf(ctx, {}), ...headers });
      pets?.forEach((value, name) => all.set(name, value));
      if (pets?.has('deprecation')) {
        const successor = headersOf(ctx, Object.assign({}, ...errors.map((error) => petStoreErrorOf(error).meta)));
        if (successor['link']) all.set('link', successor['link']);
      }
      return { headers: all };
    };
    const raw = request.raw;
    if (raw && 'node' in raw) {
      // tRPC takes a body already read from `req.body`, as from a host's body parser.
      if (request.method === 'POST') (raw.node.req as typeof raw.node.req & { body?: unknown }).body = body ?? '';
      await nodeHTTPRequestHandler({
        router: appRouter,
        req: raw.node.req,
        res: raw.node.res,
        path: target,
        maxBodySize: BODY_LIMIT,
        createContext: () => context,
        responseMeta,
      });
      return 'answered' as const;
    }
    if (!raw || !('fetch' in raw)) throw new Error('A streamed tRPC batch needs the runtime request.');
    const original = raw.fetch;
    const req =
      request.method === 'POST'
        ? new Request(original.url, { method: 'POST', headers: original.headers, body: body === undefined ? '' : JSON.stringify(body) })
        : original;
    const response = await fetchRequestHandler({
      router: appRouter,
      req,
      endpoint: trpcBase,
      createContext: () => context,
      responseMeta,
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: response.body ?? undefined,
    } satisfies StandardResponse;
  }

  /** The calls a path names; none when a batch names more than {@link maxBatchSize} (nothing else is looked at then). */
  const callsOf = (path: string, batch: boolean): { target: string; calls: Call[] | undefined } => {
    const target = path.length > 1 ? decoded(path.slice(1)) : '';
    const names = batch ? target.split(',', maxBatchSize + 1) : [target];
    if (names.length > maxBatchSize) return { target, calls: undefined };
    const calls = names.map((name, index) => ({ path: name, procedure: target === '' ? undefined : procedureAt(name), index }));
    return { target, calls };
  };

  return {
    prefix,
    match(request, path, query) {
      const method = request.method;
      const params = parse(query);
      const batch = first(params['batch']) === '1';
      const { target, calls } = callsOf(path, batch);
      // Refused as a whole before any call runs, and counted once, like a request that names no procedure.
      if (calls === undefined) return { kind: 'refuse', route: `${trpcBase}/{batch}`, error: tooLarge() };
      const known = calls.every((call) => call.procedure !== undefined);
      const route = known ? (batch ? `${trpcBase}/{batch}` : `${trpcBase}/${target}`) : 'unmatched';
      if (method !== 'GET' && method !== 'POST') {
        return { kind: 'refuse', route, error: new PetStoreError('method_not_allowed', `Unsupported ${method}-request.`), allow: ALLOW };
      }
      if (calls.every((call) => call.procedure === undefined)) {
        return { kind: 'refuse', route, error: new PetStoreError('not_found', `No procedure found on path "${target}".`) };
      }
      const single = calls.length === 1 ? calls[0]!.procedure : undefined;
      if (single && METHOD_OF[single.type] !== method) {
        const message = `Unsupported ${method}-request to ${single.type} procedure at path "${target}".`;
        return { kind: 'refuse', route, error: new PetStoreError('method_not_allowed', message), allow: METHOD_OF[single.type] };
      }
      const readAll = inputReader(request, params);
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
      const plan: Plan = { calls, batch, inputs: [] };
      const codecCalls = calls.map(({ path: name, procedure, index }): CodecCall => {
        if (procedure === undefined) return { failure: new PetStoreError('not_found', `No procedure found on path "${name}".`) };
        if (METHOD_OF[procedure.type] !== method) {
          const message = `Unsupported ${method}-request to ${procedure.type} procedure at path "${name}".`;
          return { failure: new PetStoreError('method_not_allowed', message) };
        }
        return { operationId: procedure.operationId, readInput: async () => (plan.inputs[index] = await read(index)) };
      });
      if (batch && known && streamable(request, calls)) {
        const serve = (ctx: RequestContext, headers: Record<string, string>, admitted: Batch) =>
          delegate(request, ctx, target, headers, admitted, readAll);
        return { kind: 'delegated', route: `${trpcBase}/{stream}`, calls: codecCalls, serve };
      }
      return { kind: 'calls', route, calls: codecCalls, plan };
    },
    allows(path, query) {
      const { calls } = callsOf(path, first(parse(query)['batch']) === '1');
      if (calls === undefined || !calls.every((call) => call.procedure !== undefined)) return undefined;
      const methods = new Set(calls.map((call) => METHOD_OF[call.procedure!.type]));
      return [...methods].sort().join(', ');
    },
    encode(plan, results: readonly CallResult[], ctx) {
      const meta: ResponseMeta = {};
      const statuses = new Set<number>();
      let nextUrl: string | undefined;
      const bodies = results.map((result, index) => {
        const call = plan.calls[index]!;
        if (result.ok) {
          const { outcome } = result;
          Object.assign(meta, outcome.meta);
          statuses.add(200);
          const cursor = call.procedure!.linksNextPage ? outcome.meta.nextCursor : undefined;
          if (cursor !== undefined) nextUrl = nextPageUrl(ctx.linkBase(trpcBase), call.path, plan.inputs[index], cursor);
          return `{"result":{"data":${jsonText(call.procedure!.result(outcome))}}}`;
        }
        Object.assign(meta, result.error.meta);
        statuses.add(result.error.status);
        return JSON.stringify({ error: trpcErrorShape(result.error, call.path) });
      });
      // An ETag names one answer: a batch's answers have none in common.
      if (plan.batch) delete meta.etag;
      const status = statuses.size === 1 ? statuses.values().next().value! : 207;
      return jsonResponse(status, plan.batch ? `[${bodies.join(',')}]` : bodies[0]!, headersOf(ctx, meta, nextUrl));
    },
    encodeError,
  };
}
