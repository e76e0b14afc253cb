import type { Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { PetStoreError } from '../errors/pet-store-error.js';
import { petQueryVerbs, type PetRepository } from '../storage/pet-repository.js';
import { inTrace, openTelemetry, tracingApi, type OpenTelemetry } from './open-telemetry.js';
import { STORE_TRACER_NAME, type TracerProviderLike } from './tracer-provider.js';

// The API's values. The code below runs only with a tracer, and there is one only when the API is installed.
const { context, SpanKind: Kind, SpanStatusCode, trace } = openTelemetry ?? ({} as OpenTelemetry);

/**
 * The store's tracer: from `provider`, or from the global provider of `@opentelemetry/api`, which is a no-op until a
 * host registers an SDK (and is looked up at each span, so an SDK registered later still gets them). `undefined`
 * (no tracing) when the API is not installed; a `provider` without it throws, naming the package to install.
 */
export const storeTracer = (provider?: TracerProviderLike): Tracer | undefined =>
  tracingApi(provider, 'Tracing the store (tracerProvider)') &&
  ((provider as TracerProvider | undefined) ?? trace.getTracerProvider()).getTracer(STORE_TRACER_NAME);

/** Marks a failure on a span: an error status (with `error.type`) for faults, the code alone for a client's mistake. */
export function recordFailure(span: Span, error: unknown) {
  if (error instanceof PetStoreError) {
    span.setAttribute('petstore.error.code', error.code);
    if (error.status < 500) return;
    span.setAttribute('error.type', error.code);
    span.recordException(error.cause instanceof Error ? error.cause : error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
    return;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error');
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `work` with `span` as the active span (its children nest under it) and ends the span when the work settles,
 * marking a failure with `onFailure`. Callers start the span and check {@link inTrace} first: a no-op span needs
 * none of this, and its work just runs.
 * @example const span = tracer.startSpan('listPets', options); return inTrace(span) ? inSpan(span, run) : run(span)
 */
export function inSpan<T>(span: Span, work: (span: Span) => Promise<T>, onFailure: (span: Span, error: unknown) => void = recordFailure): Promise<T> {
  return context.with(trace.setSpan(context.active(), span), () =>
    work(span).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        onFailure(span, error);
        span.end();
        throw error;
      },
    ),
  );
}

const DB = { 'db.system.name': 'postgresql', 'db.collection.name': 'pets' } as const;

/**
 * The pets table's calls as client spans (`SELECT pets`, `INSERT pets`, following the database semantic
 * conventions), children of whatever span is active: every method of the repository, with the verb
 * {@link petQueryVerbs} gives it.
 * @example const pets = tracedRepository(createPetRepository(db), tracer); await pets.findById(1) // a SELECT pets span
 */
export function tracedRepository(pets: PetRepository, tracer: Tracer): PetRepository {
  const traced: Record<string, unknown> = {};
  for (const [method, verb] of Object.entries(petQueryVerbs)) {
    const name = `${verb} pets`;
    const options = { kind: Kind.CLIENT, attributes: { ...DB, 'db.operation.name': verb, 'petstore.db.call': `pets.${method}` } };
    const query = (pets[method as keyof PetRepository] as (...args: unknown[]) => Promise<unknown>).bind(pets);
    traced[method] = (...args: unknown[]) => {
      const span = tracer.startSpan(name, options);
      return inTrace(span) ? inSpan(span, () => query(...args)) : query(...args);
    };
  }
  return traced as unknown as PetRepository;
}
