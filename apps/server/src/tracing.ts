import { inTrace, openTelemetry } from '@petstore/core/opentelemetry';

/**
 * What the service passes as `tracerProvider`: the global one (`undefined`) when an OpenTelemetry SDK was registered
 * before it started, as the SDK documents for a process it does not own (`node --import ./otel.mjs dist/main.js`),
 * and `false` otherwise. Nothing in the service registers an SDK later, so without one at start-up no tracing code
 * needs to run per request. Asked once, with a probe span on the global tracer that is never ended (so never
 * exported): an SDK's span records, or carries a real trace id when sampled out; the API's no-op span does neither.
 * @example openPetStore({ …, tracerProvider: tracingChoice() })
 */
export function tracingChoice(): false | undefined {
  if (!openTelemetry) return false;
  const probe = openTelemetry.trace.getTracer('@petstore/server').startSpan('petstore.probe', { root: true });
  return inTrace(probe) ? undefined : false;
}
