import { PetStoreError, toPetStoreError, unavailableDependency, type InputReader, type Outcome, type PetStore, type PetStoreMetrics, type TracerProviderLike } from '@petstore/core';
import { withAnswerHeaders } from './answer-headers.js';
import { createBatch, type Batch } from './batch.js';
import type { CallResult, Codec, CodecCall, CodecMatch } from './codec.js';
import { createCors, type CorsOrigins } from './cors.js';
import { createEdge, type Edge, type EdgeOptions, type RequestContext } from './request-context.js';
import { splitTarget } from './request-target.js';
import { responseHeaders } from './response-headers.js';
import { errorResponse } from './respond.js';
import type { StandardRequest, StandardResponse } from './standard.js';
import type { OutageLog } from './telemetry/outage-log.js';
import { knownMethod } from './telemetry/known-method.js';
import { requestLine, type RequestLogger } from './telemetry/request-line.js';
import { createServerTracing, type RequestTrace } from './telemetry/server-span.js';
import { createTrustRanks } from './trust-rank.js';

/** A resource served at a fixed path beside the codecs (`/healthz`), for GET and HEAD, with no key. */
export type Resource = (ctx: RequestContext) => Promise<StandardResponse> | StandardResponse;

/** What every handler on the pipeline takes: whom it trusts (the edge), which browsers may call, who hears of errors. */
export interface SurfaceOptions extends EdgeOptions {
  /** Origins allowed to call from a browser: `*` (the default), a list, or `false`. */
  cors?: CorsOrigins | undefined;
  /** Told of every error answered, with its cause and the request's context (for logging 500s). */
  onError?: ((error: PetStoreError, ctx: RequestContext) => void) | undefined;
  /**
   * A pino logger (the host's own), or any object with pino's `info(fields, message)`: one line per request answered,
   * `{ reqId, method, route, status, durationMs, keyId }` with the message `request` (the route is the template;
   * never a key, an `Authorization` header or a body), and an error line (`request failed`, with its cause) for each
   * 5xx fault. None by default.
   */
  logger?: RequestLogger | undefined;
  /**
   * With `logger`: an outage of the database (or Redis) is logged by this outage log (a line when it goes down, one
   * when it returns) instead of one fault line per refused request. The host makes it (`createOutageLog`, with the
   * store's probe) and closes it with the store.
   */
  outageLog?: Pick<OutageLog, 'failed'> | undefined;
  /** Told of each request answered (method, route template, status, seconds); see {@link PetStoreMetrics}. */
  metrics?: PetStoreMetrics | undefined;
  /**
   * OpenTelemetry: one server span per request answered (HTTP semantic conventions, `traceparent` honoured through the
   * global propagator), parent of the store's spans. Default: the global tracer provider of `@opentelemetry/api`, a
   * no-op until a host registers an SDK. `false`: no tracing code runs at all, nor when the host has not installed
   * the API (an optional peer); a provider without it throws, naming the package to install.
   */
  tracerProvider?: TracerProviderLike | false | undefined;
}

/** What {@link createPipeline} is built from. */
export interface PipelineOptions extends SurfaceOptions {
  store: PetStore;
  /** The wire formats, each under its prefix (`/v1`, `/trpc`). */
  codecs: readonly Codec<any>[];
  /** Resources at fixed paths beside the codecs, relative to the base path (`/healthz`). */
  resources?: Readonly<Record<string, Resource>>;
  /** Where the whole surface is mounted (`/petstore`); paths outside it are not the pipeline's. Default ''. */
  basePath?: string;
  /** The edge the codecs were built with; built from the other options when absent. */
  edge?: Edge;
}

/** How one request ended: a response to write, one already written by a codec, or not the pipeline's (`next`). */
export type PipelineResult = StandardResponse | 'answered' | undefined;

/** The one request pipeline of every host and codec. */
export interface Pipeline {
  /**
   * Serves a request: context once, host redirects, CORS, the codec's match, the core's one entry per call, the
   * codec's encoding, and the headers every answer carries. With `fallThrough`, paths it does not own (outside the
   * base path, or under it but outside the codecs' prefixes and resources) resolve to undefined for the host's next
   * handler; else they get 404. An unknown path under a codec's prefix (`/v1/orders`) is the API's 404 either way.
   */
  handle(request: StandardRequest, options?: { fallThrough?: boolean }): Promise<PipelineResult>;
  /** The context of the request being served, for layers that log it (request id, route, key id). */
  contextOf(request: StandardRequest): RequestContext | undefined;
  /**
   * What a bearer token has earned, for shedding before any look-up: 0 none (or not shaped like a key), 1 a key not
   * served yet here or on the lowest plan, up to 3 for the plans with the most requests (see `createTrustRanks`).
   */
  rankOf(token: string | undefined): number;
  readonly edge: Edge;
}

/**
 * Normalises a base path: '' or `/segment…` without a trailing slash.
 * @example normalizeBasePath('petstore/') // '/petstore'
 */
export function normalizeBasePath(basePath = ''): string {
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

const isUnder = (path: string, prefix: string) =>
  prefix === '' || (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47));

/**
 * Builds the pipeline from the store and the codecs.
 * @example const pipeline = createPipeline({ store, codecs: [createRestCodec(…), createTrpcCodec(…)] })
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  const { store, codecs, onError, logger, outageLog } = options;
  const basePath = normalizeBasePath(options.basePath);
  const edge = options.edge ?? createEdge(options);
  const cors = createCors(options.cors ?? '*');
  const resources = new Map(Object.entries(options.resources ?? {}));
  const tracing = options.tracerProvider === false ? undefined : createServerTracing(options.tracerProvider || undefined);
  const logRequest = options.logger ? requestLine(options.logger) : undefined;
  const requestServed = options.metrics?.requestServed?.bind(options.metrics);
  const observed = tracing !== undefined || logRequest !== undefined || requestServed !== undefined;
  const ranks = createTrustRanks();

  const failed = (error: unknown, ctx: RequestContext) => {
    const failure = toPetStoreError(error);
    if (failure.meta.keyId !== undefined) ctx.keyId = failure.meta.keyId;
    if (failure.code === 'unavailable') ctx.unavailable ??= unavailableDependency(failure) === 'redis' ? 'redis' : 'database';
    // A fault gets a line with its cause; a client's mistake is in the request line already.
    if (failure.status >= 500 && logger && !outageLog?.failed(failure)) {
      const { requestId: reqId, method, route } = ctx;
      const fields = { reqId, method, route, code: failure.code, err: failure.cause ?? failure };
      if (logger.error) logger.error(fields, 'request failed');
      else logger.info(fields, 'request failed');
    }
    onError?.(failure, ctx);
    return failure;
  };

  /** The runner of a request's calls: each through the core's one entry (traced), in a batch or not. */
  function runner(request: StandardRequest, ctx: RequestContext, t: RequestTrace | undefined) {
    const outcomeOf = (one: Exclude<CodecCall, { failure: unknown }>, batch?: Batch, index = 0) => {
      const context = one.ifNoneMatch === undefined ? ctx : { ...ctx, ifNoneMatch: one.ifNoneMatch };
      const enter = (readInput: InputReader) => {
        const inside = t && tracing!.enter(t, request, ctx, one.operationId);
        return inside
          ? tracing!.run(inside, () => store.call(one.operationId, readInput, context))
          : store.call(one.operationId, readInput, context);
      };
      return batch ? batch.call(index, one.operationId, one.readInput, enter) : enter(one.readInput);
    };
    const settle = (outcome: Promise<Outcome<unknown>>): Promise<CallResult> =>
      outcome.then(
        (done) => {
          if (done.meta.keyId !== undefined) {
            ctx.keyId = done.meta.keyId;
            ranks.learn(ctx.apiKey, done.meta);
          }
          return { ok: true, outcome: done };
        },
        (error: unknown) => {
          const failure = failed(error, ctx);
          ranks.learn(ctx.apiKey, failure.meta);
          return { ok: false, error: failure };
        },
      );
    const run = (one: CodecCall, batch?: Batch, index = 0): Promise<CallResult> =>
      'failure' in one ? Promise.resolve({ ok: false, error: failed(one.failure, ctx) }) : settle(outcomeOf(one, batch, index));
    return { run, outcomeOf, settle };
  }

  async function call(
    request: StandardRequest,
    codec: Codec,
    match: Extract<CodecMatch<unknown>, { kind: 'calls' }>,
    ctx: RequestContext,
    t: RequestTrace | undefined,
  ) {
    const { calls } = match;
    const { run } = runner(request, ctx, t);
    if (calls.length === 1) return codec.encode(match.plan, [await run(calls[0]!)], ctx);
    if (calls.filter((one) => !('failure' in one)).length < 2) {
      return codec.encode(match.plan, await Promise.all(calls.map((one) => run(one))), ctx);
    }
    // A batch is one request at the edge: without a valid key it is refused once, with one answer.
    const batch = createBatch(store, ctx);
    const refusal = await batch.admitted.then(
      () => undefined,
      (error: unknown) => failed(error, ctx),
    );
    if (refusal) return codec.encodeError(refusal, ctx);
    return codec.encode(match.plan, await Promise.all(calls.map((one, index) => run(one, batch, index))), ctx);
  }

  /** A streamed batch: one request exactly as a batch of calls, up to its first call; then the codec's handler. */
  async function delegate(
    request: StandardRequest,
    codec: Codec,
    match: Extract<CodecMatch<unknown>, { kind: 'delegated' }>,
    ctx: RequestContext,
    t: RequestTrace | undefined,
  ) {
    const { calls } = match;
    const { run, outcomeOf, settle } = runner(request, ctx, t);
    const batch = createBatch(store, ctx);
    const refusal = await batch.admitted.then(
      () => undefined,
      (error: unknown) => failed(error, ctx),
    );
    if (refusal) return codec.encodeError(refusal, ctx);
    const head = calls[0]!;
    if ('failure' in head) throw head.failure;
    const firstOutcome = outcomeOf(head, batch, 0);
    const first = await settle(firstOutcome);
    if (!first.ok && first.error.status === 429) {
      // Refused at its first call: the others are refused without running, counted together, and answered once.
      await Promise.all(calls.slice(1).map((one, index) => run(one, batch, index + 1)));
      return codec.encodeError(first.error, ctx);
    }
    const handedOver: Batch = {
      admitted: batch.admitted,
      call: (index, operationId, readInput, runCall) => (index === 0 ? firstOutcome : batch.call(index, operationId, readInput, runCall)),
    };
    const meta = first.ok ? first.outcome.meta : first.error.meta;
    // A stream's headers go before its calls end: they carry the rate limit as of its first call.
    const headers: Record<string, string> = { ...responseHeaders({ rateLimit: meta.rateLimit }, {}), 'x-request-id': ctx.requestId };
    cors.decorate(request, headers);
    withAnswerHeaders(headers);
    return match.serve(ctx, headers, handedOver);
  }

  async function refuse(codec: Codec, ctx: RequestContext, error: PetStoreError, allow?: string) {
    let failure = error;
    try {
      failure.meta = { ...(await store.meter(ctx, 1, { answered: error.code })), ...failure.meta };
    } catch (meterError) {
      failure = toPetStoreError(meterError);
    }
    const response = codec.encodeError(failed(failure, ctx), ctx);
    if (allow !== undefined && failure === error) response.headers['allow'] = allow;
    return response;
  }

  async function serve(
    request: StandardRequest,
    ctx: RequestContext,
    path: string,
    query: string,
    fallThrough: boolean,
    t: RequestTrace | undefined,
  ) {
    const resource = resources.get(path);
    // Work follows trust: a request's body is read only for calls from a key-shaped token, and only once the key and
    // the quota admitted them (the core reads input last). Anything else is answered from its headers alone.
    if (resource) {
      request.bodyWanted?.(false);
      ctx.route = `${basePath}${path}`;
      if (request.method === 'GET' || request.method === 'HEAD') return resource(ctx);
      const response = errorResponse(failed(new PetStoreError('method_not_allowed'), ctx));
      response.headers['allow'] = 'GET, HEAD';
      return response;
    }
    const codec = codecs.find((candidate) => isUnder(path, candidate.prefix));
    if (!codec) {
      if (fallThrough) return undefined;
      request.bodyWanted?.(false);
      return errorResponse(failed(new PetStoreError('not_found'), ctx));
    }
    const inner = path.slice(codec.prefix.length);
    if (cors.isPreflight(request)) {
      const methods = codec.allows(inner, query);
      if (methods !== undefined) {
        request.bodyWanted?.(false);
        return cors.preflight(request, methods);
      }
    }
    const match = codec.match(request, inner, query, ctx);
    request.bodyWanted?.((match.kind === 'calls' || match.kind === 'delegated') && ranks.rankOf(ctx.apiKey) > 0);
    switch (match.kind) {
      case 'calls':
        ctx.route = match.route;
        return call(request, codec, match, ctx, t);
      case 'delegated':
        ctx.route = match.route;
        return delegate(request, codec, match, ctx, t);
      case 'resource': {
        ctx.route = match.route;
        const headers: Record<string, string> = { 'x-request-id': ctx.requestId };
        cors.decorate(request, headers);
        withAnswerHeaders(headers);
        return match.serve(ctx, headers);
      }
      case 'refuse':
        ctx.route = match.route;
        return refuse(codec, ctx, match.error, match.allow);
      case 'missing':
        // Under an API's own prefix every path is the API's: its clients get its JSON 404, counted, never the host's.
        return refuse(codec, ctx, new PetStoreError('not_found'));
    }
  }

  /** The log line, the metrics and the end of the span of a request the pipeline answered. */
  function finish(request: StandardRequest, ctx: RequestContext, result: StandardResponse | 'answered', started: number, t: RequestTrace | undefined) {
    const status = result !== 'answered' ? result.status : request.raw && 'node' in request.raw ? request.raw.node.res.statusCode : 200;
    const ids = t ? tracing!.end(t, request, ctx, status) : undefined;
    const ms = performance.now() - started;
    if (requestServed) {
      const served = { method: knownMethod(ctx.method), route: ctx.route, status, seconds: ms / 1000 };
      requestServed(status === 503 && ctx.unavailable ? { ...served, reason: ctx.unavailable } : served);
    }
    if (!logRequest) return;
    const durationMs = Math.round(ms * 100) / 100;
    if (ids) logRequest({ reqId: ctx.requestId, method: ctx.method, route: ctx.route, status, durationMs, keyId: ctx.keyId, ...ids });
    else logRequest({ reqId: ctx.requestId, method: ctx.method, route: ctx.route, status, durationMs, keyId: ctx.keyId });
  }

  async function handle(request: StandardRequest, { fallThrough = false } = {}): Promise<PipelineResult> {
    const started = observed ? performance.now() : 0;
    const { path, query } = splitTarget(request.url);
    const inside = isUnder(path, basePath);
    if (!inside && fallThrough) return undefined;
    const ctx = edge.context(request);
    request.context = ctx;
    const t = tracing?.begin(request, started);
    let response: PipelineResult;
    try {
      const redirect = edge.redirect(request, ctx);
      if (redirect || !inside) request.bodyWanted?.(false);
      response =
        redirect ??
        (inside
          ? await serve(request, ctx, path.slice(basePath.length), query, fallThrough, t)
          : errorResponse(failed(new PetStoreError('not_found'), ctx)));
    } catch (error) {
      response = errorResponse(failed(error, ctx));
    }
    if (response === undefined) return response;
    if (response !== 'answered') {
      response.headers['x-request-id'] = ctx.requestId;
      cors.decorate(request, response.headers);
      withAnswerHeaders(response.headers);
    }
    if (observed) finish(request, ctx, response, started, t);
    return response;
  }

  return Object.freeze({ handle, contextOf: (request: StandardRequest) => request.context, rankOf: ranks.rankOf, edge });
}
