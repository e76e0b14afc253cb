import type { Attributes, Context, Span, TextMapGetter, TracerProvider } from '@opentelemetry/api';
import { inTrace, openTelemetry, tracingApi, type OpenTelemetry } from '@petstore/core/opentelemetry';
import type { TracerProviderLike } from '@petstore/core';
import type { RequestContext } from '../request-context.js';
import type { StandardRequest } from '../standard.js';
import { knownMethod } from './known-method.js';
import { HTTP_TRACER_NAME } from './tracer-name.js';

// The API's values. The code below runs only through a ServerTracing, and there is one only when the API is installed.
const { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } = openTelemetry ?? ({} as OpenTelemetry);

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
  /**
   * A call of the request (`operationId`): starts the server span on the first one, and gives the context the call
   * runs in (the span active), or `undefined` when the span is a no-op (no SDK): the call then just runs.
   */
  enter(trace: RequestTrace, request: StandardRequest, ctx: RequestContext, operationId: string): Context | undefined;
  /** Runs `work` in the context {@link ServerTracing.enter} gave. */
  run<T>(inside: Context, work: () => Promise<T>): Promise<T>;
  /**
   * Ends the request's span with its route and status (starting it, from the arrival time, if no call did), and
   * gives its trace and span ids for the request's log line when it was recorded.
   */
  end(trace: RequestTrace, request: StandardRequest, ctx: RequestContext, status: number): TraceIds | undefined;
}

/** The ids of a recorded server span, as log lines carry them. */
export interface TraceIds {
  trace_id: string;
  span_id: string;
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
  const timeOrigin = performance.timeOrigin;

  function start(t: RequestTrace, request: StandardRequest, ctx: RequestContext): Span {
    const method = knownMethod(request.method);
    const known = method !== '_OTHER';
    const url = request.url;
    const mark = url.indexOf('?');
    const matched = ctx.route !== 'unmatched';
    // One shape for every request (an absent attribute is undefined, which the API's Attributes allow and SDKs
    // leave out), all of them there for a sampler to see.
    const attributes: Attributes = {
      'http.request.method': method,
      'http.request.method_original': known ? undefined : request.method,
      'url.scheme': ctx.scheme,
      'url.path': mark === -1 ? url : url.slice(0, mark),
      'url.query': mark === -1 || mark === url.length - 1 ? undefined : url.slice(mark + 1),
      'server.address': ctx.host === undefined ? undefined : withoutPort(ctx.host),
      'client.address': ctx.clientAddress,
      'user_agent.original': request.header('user-agent'),
      'http.route': matched ? ctx.route : undefined,
    };
    const verb = known ? method : 'HTTP';
    const name = matched ? `${verb} ${ctx.route}` : verb;
    return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, startTime: timeOrigin + t.started }, t.parent);
  }

  return {
    begin: (request, started) => ({
      parent: propagation.extract(ROOT_CONTEXT, request, headerGetter),
      started,
      span: undefined,
      operation: undefined,
    }),
    enter(t, request, ctx, operationId) {
      t.operation = t.operation === undefined ? operationId : `${t.operation},${operationId}`;
      const span = (t.span ??= start(t, request, ctx));
      return inTrace(span) ? trace.setSpan(t.parent, span) : undefined;
    },
    run: (inside, work) => context.with(inside, work),
    end(t, request, ctx, status) {
      const span = (t.span ??= start(t, request, ctx));
      if (!span.isRecording()) return undefined;
      if (ctx.route !== 'unmatched') span.setAttribute('http.route', ctx.route);
      if (t.operation !== undefined) span.setAttribute('petstore.operation.id', t.operation);
      if (ctx.keyId !== undefined) span.setAttribute('petstore.key.id', ctx.keyId);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
}

/** A Host header's name without its port (`[::1]:8080` → `[::1]`, `api.example.com:443` → `api.example.com`). */
function withoutPort(host: string) {
  const colon = host.lastIndexOf(':');
  return colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
}
