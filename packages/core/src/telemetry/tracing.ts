import type { Attributes, Span, SpanKind, Tracer, TracerProvider } from '@opentelemetry/api';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { PetRepository } from '../storage/pet-repository.js';
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
 * conventions), children of whatever span is active.
 */
export function tracedRepository(pets: PetRepository, tracer: Tracer): PetRepository {
  const db = (operation: 'SELECT' | 'INSERT', call: string) => ({
    kind: Kind.CLIENT,
    attributes: { ...DB, 'db.operation.name': operation, 'petstore.db.call': call },
  });
  const insert = db('INSERT', 'pets.insert');
  const findById = db('SELECT', 'pets.findById');
  const list = db('SELECT', 'pets.list');
  return {
    insert(pet) {
      const span = tracer.startSpan('INSERT pets', insert);
      return inTrace(span) ? inSpan(span, () => pets.insert(pet)) : pets.insert(pet);
    },
    findById(id) {
      const span = tracer.startSpan('SELECT pets', findById);
      return inTrace(span) ? inSpan(span, () => pets.findById(id)) : pets.findById(id);
    },
    list(query) {
      const span = tracer.startSpan('SELECT pets', list);
      return inTrace(span) ? inSpan(span, () => pets.list(query)) : pets.list(query);
    },
  };
}
