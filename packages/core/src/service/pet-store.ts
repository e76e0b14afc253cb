import type { Attributes, Span, SpanKind } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { createApiKeyStore, type ApiKeyStore } from '../auth/api-key-store.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { systemClock, type Clock } from '../clock.js';
import { errorCodes, type ErrorCode } from '../errors/error-codes.js';
import { isDatabaseUnavailable } from '../errors/is-database-unavailable.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { validateWithIdempotencyKey } from '../idempotency/idempotency-key.js';
import { createIdempotencyStore } from '../idempotency/idempotency-store.js';
import { operations, type OperationDefinition, type OperationId } from '../operations/operations.js';
import { withBatchedInserts } from '../storage/batched-inserts.js';
import type { Database } from '../storage/database.js';
import { withGroupedOrders } from '../storage/grouped-order-changes.js';
import { withGroupedChanges } from '../storage/grouped-pet-changes.js';
import { createOrderRepository, type OrderRepository } from '../storage/order-repository.js';
import { createPetRepository, type PetRepository } from '../storage/pet-repository.js';
import { createWebhookRepository, type WebhookRepository } from '../storage/webhook-repository.js';
import { openWebhooks, type WebhookOptions } from '../webhooks/webhooks.js';
import { schemaName, storeDatabase } from '../storage/schema.js';
import { attemptsInto, type PetStoreMetrics, type WebhookBacklog } from '../telemetry/metrics.js';
import { inTrace, openTelemetry } from '../telemetry/open-telemetry.js';
import type { TracerProviderLike } from '../telemetry/tracer-provider.js';
import { timedCalls } from '../telemetry/timed-calls.js';
import { inSpan, recordFailure, storeTracer, tracedRepository } from '../telemetry/tracing.js';
import { createDeprecatedUsageLedger, type DeprecatedUsage } from '../usage/deprecated-usage.js';
import { createUsageLedger, type UsageQuery, type UsageRow } from '../usage/usage-ledger.js';
import { usageToday } from '../usage/usage-today.js';
import { createAdmission, type Admission, type CountedRequest } from './admission.js';
import type { CallContext } from './call-context.js';
import { createCallObserver, outcomeOf } from './call-observer.js';
import { createPageCache } from './page-cache.js';
import { unlimitedQuota, type Quota } from './quota.js';
import type { RateLimitWindow, ResponseMeta } from './response-meta.js';

export type { CallContext } from './call-context.js';
export type { CountedRequest } from './admission.js';

/** The answer of an operation: its data, and what the response carries besides. */
export interface Outcome<T> {
  data: T;
  meta: ResponseMeta;
}

/**
 * Reads the input of a call; awaited only once the request is admitted (key, quota, sunset), and told the windows
 * that counted it (the binding one first), so that a batch knows how many of its calls can still fit.
 */
export type InputReader = (admitted?: Admitted) => unknown;

/** What an {@link InputReader} is told of its call's admission. */
export interface Admitted {
  /** The windows that counted the call, the binding one first; empty without limits. */
  readonly rateLimit: readonly RateLimitWindow[];
}

/** What a call that counted nothing is told of its admission (a principal's or a key's without limits). */
const UNCOUNTED: Admitted = Object.freeze({ rateLimit: Object.freeze([]) as readonly RateLimitWindow[] });

type Operations = typeof operations;

/** An operation's data as the store answers it: arrays read-only, since a cached page is frozen and shared. */
type Answer<T> = T extends readonly (infer Item)[] ? readonly Item[] : T;

/**
 * One typed method per operation, named by its operationId: its input as typed callers send it, its output as
 * answered. Derived from the registry: a new operation is a method of every store without a line here.
 * @example const { data: pets, meta } = await store.listPets({ limit: 20 }, { apiKey }) // meta.nextCursor
 */
export type OperationMethods = {
  readonly [K in keyof Operations]: (
    input: z.input<Operations[K]['input']>,
    context: CallContext,
  ) => Promise<Outcome<Answer<z.output<Operations[K]['output']>>>>;
};

/**
 * The pet store: every operation with the same authentication, quota, validation and errors for every caller, as a
 * method of its own (`listPets`, `createPet`, …; see {@link OperationMethods}) and through {@link PetStore.call}.
 */
export interface PetStore extends OperationMethods {
  /**
   * The one entry of every request: authenticates, counts it against the quota, checks the operation is still
   * served, and only then reads the input (so a missing key is 401 before any body is read), validates and runs it.
   * Failures are PetStoreErrors carrying the meta of the request so far.
   * @example await store.call('getPet', () => ({ petId: 7 }), { apiKey })
   */
  call(operationId: OperationId, readInput: InputReader, context: CallContext): Promise<Outcome<unknown>>;
  /**
   * Admits a batch of calls as one request, before any of its calls is counted: the key is verified and the address
   * rule applied once. Without a valid key the batch is counted once against the client address and refused
   * (`missing_api_key` or `invalid_api_key`, or the address's 429); a valid key that the address rule refuses gets
   * that same 429, uncharged, as a wrong key would. Admitted (a valid key or a principal), nothing is counted: `call`
   * then counts each call. Failures are PetStoreErrors carrying their meta, as `call`'s are.
   * @example await store.admitBatch(context); await Promise.all(calls.map(({ id, read }) => store.call(id, read, context)))
   */
  admitBatch(context: CallContext): Promise<void>;
  /**
   * Counts a request that matches no operation (an unknown path, another method) against the caller's quota:
   * the key's when it is valid, the client address's otherwise. Never refuses a missing key; throws only 429/503.
   * `requests` counts that many at once. `refusedWith` is the 429 they were refused along with: the calls of a batch
   * that waited for one refused with 429, refused without running. Those are the key's (the key verified and the
   * address rule applied as for any request) but its windows count none of them, so that one batch is one request
   * toward a ban (DECISIONS "Hostile clients and overload"), and the quota's store is not asked again; they are told
   * and kept in the usage ledger as refused with its code.
   * `answered` is the error the request gets (`not_found` by default; `refusedWith`'s code when given), or `served`
   * for a resource served beside the operations (the docs), for the usage ledger; `operationId` the operation the
   * requests named (refused calls of a batch), kept in the ledger under it instead of `unmatched`.
   * @example await store.meter(context, 40, { refusedWith: firstRefusal, operationId: 'createPet' }) // 40 calls of a batch, refused along with its first 429
   */
  meter(
    context: CallContext,
    requests?: number,
    options?: { answered?: ErrorCode | 'served'; refusedWith?: PetStoreError; operationId?: OperationId },
  ): Promise<ResponseMeta>;
  /** Whether the database answers. */
  isHealthy(): Promise<boolean>;
  /**
   * Which keys called deprecated operations, how often and when last (counted in memory, written in batches every
   * few seconds; this instance's pending counts are written first).
   */
  deprecatedUsage(): Promise<DeprecatedUsage[]>;
  /**
   * The usage ledger (DECISIONS "Usage"): requests per API key or principal, UTC day, plan and operation, by outcome,
   * this instance's pending counts written first; other instances' within their flush delay (5 s by default).
   * @example await store.usage({ from: '2026-11-01', to: '2026-11-30', plan: 'pro' })
   */
  usage(query?: UsageQuery): Promise<UsageRow[]>;
  /**
   * The webhook deliveries still to send on the whole database (every instance's), in one statement: for gauges read
   * when metrics are scraped (`petstore_webhook_deliveries_pending`, `petstore_webhook_oldest_pending_seconds`).
   * @example const { pending, oldestPendingSeconds } = await store.webhookBacklog()
   */
  webhookBacklog(): Promise<WebhookBacklog>;
  /** Writes what is still counted in memory and stops the store's timers. */
  close(): Promise<void>;
  /** The key store, for the key tool and for seeding keys. */
  readonly apiKeys: ApiKeyStore;
  readonly clock: Clock;
}

/** What {@link createPetStore} is built from. */
export interface PetStoreOptions {
  /**
   * The database, migrated with `migrateToLatest` (or a host's migrator running `petStoreMigrations`) for the same
   * `schema`. A host's own Kysely does: the store leaves its plugins out and never destroys it.
   */
  db: Kysely<Database>;
  /** The PostgreSQL schema of the store's tables; unset, the connection's current one (`public`). */
  schema?: string | undefined;
  /**
   * Whether a storage error means the database cannot be reached (503 `unavailable`) rather than a fault (500).
   * Default: {@link isDatabaseUnavailable}, which knows what `pg` and PGlite say.
   */
  isUnavailable?: (error: unknown) => boolean;
  clock?: Clock;
  /** The quota step; none by default. */
  quota?: Quota;
  /** Told of every counted request (for logs and metrics: the key id, the plan, 429s). */
  onRequestCounted?: (request: CountedRequest) => void;
  /**
   * How long a page of `listPets` is served from memory, in ms (default 1000). A write through this store shows in
   * its next list at once; writes through other instances on the same database show within this time. 0 turns
   * the cache off.
   */
  listCacheMs?: number;
  /** Told of 429s (by plan and code) and of deprecated calls (by operation and key); see {@link PetStoreMetrics}. */
  metrics?: PetStoreMetrics | undefined;
  /**
   * OpenTelemetry: each call is a span (its operation id, key or principal id, error code), with a client span for
   * each query of the pets table. Default: the global tracer provider of `@opentelemetry/api`, a no-op until a host
   * registers an SDK. `false`: no tracing code runs at all. The API is an optional peer: when the host has not
   * installed it, no tracing code runs either, and passing a provider throws an error naming the package to install.
   */
  tracerProvider?: TracerProviderLike | false | undefined;
  /**
   * The usage ledger: how often counts kept in memory are written (the ledger's delay, default 5000 ms), and how many
   * UTC days are kept (default 400; older days are deleted).
   */
  usage?: { flushEveryMs?: number; retentionDays?: number } | undefined;
  /** Webhooks (DECISIONS "Events"): the target rule, the retry schedule and the delivery worker's bounds. */
  webhooks?: WebhookOptions | undefined;
}

/**
 * Builds the pet store from its collaborators; nothing is read from globals.
 * @example const store = createPetStore({ db, clock: systemClock }); await store.listPets({ limit: 5 }, { apiKey })
 */
export function createPetStore(options: PetStoreOptions): PetStore {
  const { clock = systemClock, quota = unlimitedQuota, listCacheMs = 1000 } = options;
  const schema = schemaName(options.schema);
  const db = storeDatabase(options.db, schema);
  const isUnavailable = options.isUnavailable ?? isDatabaseUnavailable;
  const pages = createPageCache(clock, listCacheMs);
  const tracer = options.tracerProvider === false ? undefined : storeTracer(options.tracerProvider || undefined);
  const traced = (repository: PetRepository) => (tracer ? tracedRepository(repository, tracer) : repository);
  // Each request's wait for its data, queued behind a grouped statement or not (PetStoreMetrics `databaseWait`).
  const { metrics } = options;
  const waited = metrics?.databaseWait ? (seconds: number) => metrics.databaseWait!({ stage: 'call', seconds }) : undefined;
  const timed = <R extends object>(repository: R): R => (waited ? timedCalls(repository, waited) : repository);
  const pets: PetRepository = timed(traced(withGroupedChanges(withBatchedInserts(createPetRepository(db, schema), db, schema), db, schema)));
  const orders = timed(withGroupedOrders(createOrderRepository(db, schema), db, schema));
  const now = () => new Date(clock.now());
  const apiKeys = createApiKeyStore(options.db, { clock, schema });
  const authenticator = createAuthenticator({ keys: apiKeys, clock });
  const idempotency = createIdempotencyStore({ db, clock });
  const deprecatedUsage = createDeprecatedUsageLedger({ db, clock });
  const usage = createUsageLedger({ db, clock, ...options.usage });
  const webhooks = openWebhooks(db, schema, clock, { ...options.webhooks, onAttempt: attemptsInto(options.metrics, options.webhooks?.onAttempt) });
  const room = createAdmission({ quota, authenticator, clock });
  const observer = createCallObserver({
    usage,
    deprecatedUsage,
    metrics: options.metrics,
    onRequestCounted: options.onRequestCounted,
    lastKnown: authenticator.lastKnown,
  });

  function failure(error: unknown, meta: ResponseMeta): PetStoreError {
    const failed =
      error instanceof PetStoreError
        ? error
        : new PetStoreError(isUnavailable(error) ? 'unavailable' : 'internal_error', undefined, { cause: error });
    failed.meta = { ...meta, ...failed.meta };
    // An outage is brief or ends with a restart: the client may try again in a second (DECISIONS: at least 1).
    if (failed.code === 'unavailable') failed.meta.retryAfter ??= 1;
    return failed;
  }

  /** A request ended in `failed`: observed as such, and thrown. */
  function failing(error: unknown, meta: ResponseMeta, admission: Admission, context: CallContext, operationId: OperationId | 'unmatched', requests = 1): never {
    const failed = failure(error, meta);
    observer.ended(admission, context.apiKey, operationId, outcomeOf(failed.status, failed.code), requests);
    throw failed;
  }

  async function admitBatch(context: CallContext): Promise<void> {
    const meta: ResponseMeta = {};
    const admission = room.start();
    try {
      await room.enterBatch(context, meta, admission);
    } catch (error) {
      throw failure(error, meta);
    } finally {
      observer.counted(admission, undefined);
    }
  }

  async function meter(
    context: CallContext,
    requests = 1,
    options: { answered?: ErrorCode | 'served'; refusedWith?: PetStoreError; operationId?: OperationId } = {},
  ): Promise<ResponseMeta> {
    const { refusedWith, operationId = 'unmatched' } = options;
    const answered = options.answered ?? (refusedWith?.code as ErrorCode | undefined) ?? 'not_found';
    const meta: ResponseMeta = {};
    const admission = room.start();
    try {
      await room.meter(context, meta, admission, requests, refusedWith);
    } catch (error) {
      failing(error, meta, admission, context, operationId, requests);
    }
    observer.ended(admission, context.apiKey, operationId, answered === 'served' ? 'served' : outcomeOf(errorCodes[answered].status, answered), requests);
    return meta;
  }

  // Each operation's span options, made once.
  const callSpans = new Map<string, { kind: SpanKind; attributes: Attributes }>(
    tracer ? Object.keys(operations).map((id) => [id, { kind: openTelemetry!.SpanKind.INTERNAL, attributes: { 'petstore.operation.id': id } }]) : [],
  );

  /** A call as a span of its own (a child of the host's or the HTTP request's span, when one is active). */
  function call(operationId: OperationId, readInput: InputReader, context: CallContext): Promise<Outcome<any>> {
    if (!tracer) return run(operationId, readInput, context);
    const span = tracer.startSpan(operationId, callSpans.get(operationId));
    if (!inTrace(span)) return run(operationId, readInput, context);
    return inSpan(
      span,
      () => {
        const outcome = run(operationId, readInput, context);
        return span.isRecording() ? outcome.then((done) => (identify(span, done.meta), done)) : outcome;
      },
      (span, error) => {
        if (error instanceof PetStoreError) identify(span, error.meta);
        recordFailure(span, error);
      },
    );
  }

  function identify(span: Span, meta: ResponseMeta) {
    if (meta.keyId !== undefined) span.setAttribute('petstore.key.id', meta.keyId);
    if (meta.principalId !== undefined) span.setAttribute('petstore.principal.id', meta.principalId);
  }

  /** Admitted (see `createAdmission`), the call reads its input, runs, and leaves; usage and metrics observe its end. */
  async function run(operationId: OperationId, readInput: InputReader, context: CallContext): Promise<Outcome<any>> {
    const op = operations[operationId] as OperationDefinition;
    const meta: ResponseMeta = {};
    const admission = room.start();
    try {
      await room.enter(op, context, meta, admission);
      const idempotencyKey = op.writes && admission.key ? context.idempotencyKey : undefined;
      const admitted: Admitted = meta.rateLimit ? (meta as Admitted) : UNCOUNTED;
      const input = validateWithIdempotencyKey(op.input, await readInput(admitted), idempotencyKey);
      const data = idempotencyKey === undefined ? await op.run(input, envOf(op, context, meta, admission, pets, orders, webhooks.repository)) : await idempotent(op, input, context, meta, admission, idempotencyKey);
      if (op.writes && idempotencyKey === undefined) changed();
      const left = room.leave(context, meta, admission);
      if (left) await left;
      observer.ended(admission, context.apiKey, operationId, 'served');
      return { data, meta };
    } catch (error) {
      failing(error, meta, admission, context, operationId);
    }
  }

  /** What the operation runs with, as its admitted caller. */
  /** A write went through: cached reads are stale, and its events (if any endpoint asked for them) are due. */
  function changed() {
    pages.invalidate();
    webhooks.nudge();
  }

  function envOf(
    op: OperationDefinition,
    context: CallContext,
    meta: ResponseMeta,
    admission: Admission,
    pets: PetRepository,
    orders: OrderRepository,
    hooks: WebhookRepository,
  ) {
    const { principal, key, subject } = admission;
    return {
      pets,
      orders,
      webhooks: hooks,
      webhookTargets: webhooks.targets,
      // Whose orders the caller's are: a rolled key's are its rotation's first key's.
      owner: principal ? `p:${principal.id}` : `k:${subject!.id}`,
      now,
      meta,
      cached: pages.get,
      standing: () =>
        usageToday(usage, clock.now(), principal ? { principalId: principal.id } : { keyId: key!.id }, (principal ?? key)!.plan, meta.rateLimit ?? []),
      ifMatch: op.writes && op.conditional ? context.ifMatch : undefined,
    };
  }

  /** Runs a write under its `Idempotency-Key`, in one transaction with the change it makes. */
  async function idempotent(op: OperationDefinition, input: unknown, context: CallContext, meta: ResponseMeta, admission: Admission, idempotencyKey: string) {
    const ifMatch = op.conditional ? context.ifMatch : undefined;
    // The condition is part of the request a key names: the same key with another If-Match is another request.
    const hashed = ifMatch === undefined ? input : { input, ifMatch };
    const result = await idempotency.run(
      { apiKeyId: admission.key!.id, key: idempotencyKey, operationId: op.operationId, input: hashed, status: op.successStatus, meta },
      (trx) => op.run(input, envOf(op, context, meta, admission, traced(createPetRepository(trx, schema)), createOrderRepository(trx, schema), createWebhookRepository(trx, schema))),
    );
    if (result.replayed) {
      meta.replayed = true;
      if (result.etag !== undefined) meta.etag = result.etag;
    } else changed();
    return result.data;
  }

  const methods = Object.fromEntries(
    (Object.keys(operations) as OperationId[]).map((id) => [id, (input: unknown, context: CallContext) => call(id, () => input, context)]),
  ) as unknown as OperationMethods;

  return Object.freeze({
    ...methods,
    call,
    admitBatch,
    meter,
    async isHealthy() {
      try {
        await db.selectFrom('pets').select('id').limit(1).execute();
        return true;
      } catch {
        return false;
      }
    },
    deprecatedUsage: () => deprecatedUsage.list(),
    usage: (query?: UsageQuery) => usage.query(query),
    async webhookBacklog() {
      const { pending, oldest } = await webhooks.repository.backlog();
      return { pending, oldestPendingSeconds: oldest ? Math.max(0, (clock.now() - oldest.getTime()) / 1000) : 0 };
    },
    close: async () => {
      await Promise.all([deprecatedUsage.close(), usage.close(), webhooks.close()]);
    },
    apiKeys,
    clock,
  } satisfies PetStore);
}
