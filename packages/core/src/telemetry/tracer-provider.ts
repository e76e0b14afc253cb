/** The name of the store's tracer, for a host's sampler or span processor. */
export const STORE_TRACER_NAME = '@petstore/core';

/**
 * What the `tracerProvider` options take: OpenTelemetry's `TracerProvider` (an SDK's, or the global one), described
 * here so that the packages' types never need `@opentelemetry/api`, which is an optional peer: a host that traces has
 * it installed (its SDK needs it), and one that does not compiles and runs without it.
 * @example openPetStore({ databaseUrl, tracerProvider: new BasicTracerProvider({ spanProcessors }) })
 */
export interface TracerProviderLike {
  getTracer(name: string, version?: string, options?: object): object;
}
