import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { missingPackage, requireOptional } from '../optional-package.js';
import type { TracerProviderLike } from './tracer-provider.js';

/** `@opentelemetry/api`, as its module exports it. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/**
 * The host's `@opentelemetry/api` (an optional peer), resolved from this package once at import, or `undefined` when
 * it is not installed. The one place the packages load it; `@petstore/http` takes it from here
 * (`@petstore/core/opentelemetry`).
 */
export const openTelemetry: OpenTelemetry | undefined = requireOptional<OpenTelemetry>('@opentelemetry/api', import.meta.url);

/**
 * The API to trace with: `undefined` (no tracing) when it is not installed, unless the caller passed a provider of its
 * own, which is refused with an error naming the package to install.
 * @example const api = tracingApi(options.tracerProvider, 'Tracing the store (tracerProvider)')
 */
export function tracingApi(provider: TracerProviderLike | undefined, feature: string): OpenTelemetry | undefined {
  if (openTelemetry === undefined && provider !== undefined) throw missingPackage('@opentelemetry/api', feature);
  return openTelemetry;
}

/**
 * Whether a span takes part in a trace: it records, or it carries a trace its children continue (an SDK's span that
 * was sampled out still has real ids). A no-op span (no SDK registered) has the all-zero trace id, and then the work
 * under it needs no context of its own. A string comparison, where the API's `isSpanContextValid` runs two regexes.
 * @example if (!inTrace(span)) return work()
 */
export function inTrace(span: Span): boolean {
  return span.isRecording() || span.spanContext().traceId !== openTelemetry?.INVALID_TRACEID;
}
