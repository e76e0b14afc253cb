import type { Attributes, Context, Span, TextMapGetter, TracerProvider } from '@opentelemetry/api';
import { openTelemetry, tracingApi, type OpenTelemetry } from '@petstore/core/opentelemetry';
import type { TracerProviderLike } from '@petstore/core';
import type { RequestContext } from '../request-context.js';
import type { StandardRequest } from '../standard.js';
import { HTTP_TRACER_NAME } from './tracer-name.js';

// The API's values. The code below runs only through a ServerTracing, and there is one only when the API is installed.
const { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } = openTelemetry ?? ({} as OpenTelemetry);

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/** Headers as the propagation API reads them (`traceparent`, `tracestate`, `baggage`). */
const headerGetter: TextMapGetter<StandardRequest> = {
  get: (request, name) => request.header(name),
  keys(request) {
    const raw = request.raw;
    if (raw && 'node' in raw) return Object.keys(raw.node.req.headers);
    if (raw && 'fetch' in raw) return [...raw.fetch.headers.keys()];
    return [];
  },
};

/** One request's trace: the context its client sent, and its server span once started. */
export interface RequestTrace {
  readonly parent: Context;
  /** When the request arrived (`performance.now()`), so a span started late still starts there. */
  readonly started: number;
  span: Span | undefined;
  operation: string | undefined;
}

/** The server span of each request, following OpenTelemetry's HTTP semantic conventions. */
export interface ServerTracing {
  begin(request: StandardRequest, started: number): RequestTrace;
  /** Runs a call of the request (`operationId`) inside its server span, which is started on the first one. */
  within<T>(trace: RequestTrace, request: StandardRequest, ctx: RequestContext, operationId: string, work: () => Promise<T>): Promise<T>;
  /** Ends the request's span with its route and status (starting it, from the arrival time, if no call did). */
  end(trace: RequestTrace, request: StandardRequest, ctx: RequestContext, status: number): void;
}

/**
 * Server spans through `@opentelemetry/api` only: from `provider`, or the global provider (a no-op until a host
 * registers an SDK). An incoming `traceparent` is read through the global propagator. A span is made only for a
 * request the pipeline answers (never for one it passes to the host's next handler). `undefined` (no tracing) when
 * the API is not installed; a `provider` without it throws, naming the package to install.
 * @example const tracing = createServerTracing(); const t = tracing?.begin(request, performance.now())
 */
export function createServerTracing(provider?: TracerProviderLike): ServerTracing | undefined {
  if (!tracingApi(provider, 'The HTTP server spans (tracerProvider)')) return undefined;
  const tracer = ((provider as TracerProvider | undefined) ?? trace.getTracerProvider()).getTracer(HTTP_TRACER_NAME);

  function start(t: RequestTrace, request: StandardRequest, ctx: RequestContext): Span {
    const method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';
    const { path, query } = splitUrl(request.url);
    const attributes: Attributes = {
      'http.request.method': method,
      'url.scheme': ctx.scheme,
      'url.path': path,
      'client.address': ctx.clientAddress,
    };
    if (method === '_OTHER') attributes['http.request.method_original'] = request.method;
    if (query !== '') attributes['url.query'] = query;
    if (ctx.host !== undefined) attributes['server.address'] = ctx.host.replace(/:\d+$/, '');
    const agent = request.header('user-agent');
    if (agent !== undefined) attributes['user_agent.original'] = agent;
    const matched = ctx.route !== 'unmatched';
    if (matched) attributes['http.route'] = ctx.route;
    const name = matched ? `${method === '_OTHER' ? 'HTTP' : method} ${ctx.route}` : method === '_OTHER' ? 'HTTP' : method;
    const startTime = performance.timeOrigin + t.started;
    return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, startTime }, t.parent);
  }

  return {
    begin: (request, started) => ({
      parent: propagation.extract(ROOT_CONTEXT, request, headerGetter),
      started,
      span: undefined,
      operation: undefined,
    }),
    within(t, request, ctx, operationId, work) {
      t.operation = t.operation === undefined ? operationId : `${t.operation},${operationId}`;
      const span = (t.span ??= start(t, request, ctx));
      if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return work();
      return context.with(trace.setSpan(t.parent, span), work);
    },
    end(t, request, ctx, status) {
      const span = (t.span ??= start(t, request, ctx));
      if (!span.isRecording()) return;
      if (ctx.route !== 'unmatched') span.setAttribute('http.route', ctx.route);
      if (t.operation !== undefined) span.setAttribute('petstore.operation.id', t.operation);
      if (ctx.keyId !== undefined) span.setAttribute('petstore.key.id', ctx.keyId);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

function splitUrl(url: string) {
  const mark = url.indexOf('?');
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}
