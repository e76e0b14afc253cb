import type { Attributes, Span, SpanKind } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { createApiKeyStore, type ApiKeyRecord, type ApiKeyStore } from '../auth/api-key-store.js';
import { createAuthenticator, invalidApiKey } from '../auth/authenticator.js';
import { plans } from '../auth/plans.js';
import { quotaSubject, type Principal, type QuotaSubject } from '../auth/principal.js';
import { systemClock, type Clock } from '../clock.js';
import { isDatabaseUnavailable } from '../errors/is-database-unavailable.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { validateWithIdempotencyKey } from '../idempotency/idempotency-key.js';
import { createIdempotencyStore } from '../idempotency/idempotency-store.js';
import { operations, type OperationDefinition, type OperationId } from '../operations/operations.js';
import type { Database } from '../storage/database.js';
import { withBatchedInserts } from '../storage/batched-inserts.js';
import { schemaName, storeDatabase } from '../storage/schema.js';
import { createOrderRepository, type OrderRepository } from '../storage/order-repository.js';
import { createPetRepository, type PetRepository } from '../storage/pet-repository.js';
import { countedInto, type PetStoreMetrics } from '../telemetry/metrics.js';
import { inTrace, openTelemetry } from '../telemetry/open-telemetry.js';
import type { TracerProviderLike } from '../telemetry/tracer-provider.js';
import { timedCalls } from '../telemetry/timed-calls.js';
import { inSpan, recordFailure, storeTracer, tracedRepository } from '../telemetry/tracing.js';
import type { Usage } from '../domain/usage-schemas.js';
import { noneMatchFails } from '../domain/etag.js';
import { errorCodes, type ErrorCode } from '../errors/error-codes.js';
import { banRefusal } from '../quota/ban.js';
import { createDeprecatedUsageLedger, type DeprecatedUsage } from '../usage/deprecated-usage.js';
import { createUsageLedger, utcDay, type UsageOutcome, type UsageQuery, type UsageRow } from '../usage/usage-ledger.js';
import { createPageCache } from './page-cache.js';
import { unlimitedQuota, type Quota } from './quota.js';
import type { RateLimitWindow, ResponseMeta } from './response-meta.js';

/** Who is calling. */
export interface CallContext {
  /** The API key (the bearer token), as sent. */
  apiKey?: string | undefined;
  /**
   * A caller the host authenticated itself, counted under its own plan instead of a key (`apiKey` is then ignored).
   * Its calls take no `Idempotency-Key` and are left out of the deprecated-usage inventory, which are per API key.
   */
  principal?: Principal | undefined;
  /** The client's address, for the limit on requests without a valid key. */
  clientAddress?: string | undefined;
  /**
   * The `Idempotency-Key`, as sent (1 to 255 visible ASCII characters, else 400). On `createPet` a repeat with the
   * same key and the same validated input within 24 hours answers the first response with `meta.replayed`; another
   * input, or a repeat while the first runs, is 409 `idempotency_key_reused`. Ignored by reads.
   */
  idempotencyKey?: string | undefined;
  /**
   * The `If-Match` of a conditional write (`updatePet`, `deletePet`), as sent: a list of ETags or `*`. When the animal
   * is at no version it names, 412 `precondition_failed` with the current ETag in `meta.etag`, and nothing changes.
   * @example await store.updatePet({ petId: 7, status: 'sold' }, { apiKey, ifMatch: etag })
   */
  ifMatch?: string | undefined;
  /**
   * The `If-None-Match` of a conditional read (`listPets`, `getPet`), as sent. When it matches the answer's ETag, the
   * outcome has `meta.notModified` (REST answers 304) and is counted against no window; the key must still be valid
   * and within its windows. A host's principal is always counted. Ignored by other operations.
   */
  ifNoneMatch?: string | undefined;
}

// The address a request without one is counted under.
const addressOf = (context: CallContext) => context.clientAddress ?? 'unknown';

// What a key's requests are counted against: the first key of its rotation, so a rolled key and its successor share
// one quota and one ban (DECISIONS "Hostile clients and overload").
const subjectOf = (key: ApiKeyRecord): QuotaSubject => ({ id: key.quotaKeyId ?? key.id, limits: key.limits });

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
   * for a resource served beside the operations (the docs), for the usage ledger.
   * @example await store.meter(context, 40, { refusedWith: firstRefusal }) // 40 calls of a batch, refused along with its first 429
   */
  meter(
    context: CallContext,
    requests?: number,
    options?: { answered?: ErrorCode | 'served'; refusedWith?: PetStoreError },
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
  /** Writes what is still counted in memory and stops the store's timers. */
  close(): Promise<void>;
  /** The key store, for the key tool and for seeding keys. */
  readonly apiKeys: ApiKeyStore;
  readonly clock: Clock;
}

/** A request counted against a quota: by its key when valid, else by its address; `refusal` when over a limit. */
export interface CountedRequest {
  key: ApiKeyRecord | undefined;
  /** The principal a host named, when the request was counted against one. */
  principal?: Principal;
  /** The operation called, when the request names one. */
  operationId?: OperationId;
  refusal?: PetStoreError;
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
}

/** Who a request was counted against, once known: a valid key, or the principal a host named. */
interface Caller {
  key?: ApiKeyRecord;
  principal?: Principal;
}

/** How a request ended, as the usage ledger counts it. */
function outcomeOf(status: number, code: string): UsageOutcome {
  if (code === 'api_key_banned') return 'banned';
  if (status === 429) return 'rateLimited';
  return status >= 500 ? 'serverErrors' : 'clientErrors';
}

/**
 * Builds the pet store from its collaborators; nothing is read from globals.
 * @example const store = createPetStore({ db, clock: systemClock }); await store.listPets({ limit: 5 }, { apiKey })
 */
export function createPetStore(options: PetStoreOptions): PetStore {
  const { clock = systemClock, quota = unlimitedQuota, listCacheMs = 1000, metrics } = options;
  const schema = schemaName(options.schema);
  const db = storeDatabase(options.db, schema);
  const counted = metrics ? countedInto(metrics) : undefined;
  const onRequestCounted =
    counted && options.onRequestCounted
      ? (request: CountedRequest) => (counted(request), options.onRequestCounted!(request))
      : (counted ?? options.onRequestCounted);
  const isUnavailable = options.isUnavailable ?? isDatabaseUnavailable;
  const pages = createPageCache(clock, listCacheMs);
  const tracer = options.tracerProvider === false ? undefined : storeTracer(options.tracerProvider || undefined);
  const traced = (repository: PetRepository) => (tracer ? tracedRepository(repository, tracer) : repository);
  // Each request's wait for its data, queued behind a grouped statement or not (PetStoreMetrics `databaseWait`).
  const waited = metrics?.databaseWait ? (seconds: number) => metrics.databaseWait!({ stage: 'call', seconds }) : undefined;
  const timed = <R extends object>(repository: R): R => (waited ? timedCalls(repository, waited) : repository);
  const pets: PetRepository = timed(traced(withBatchedInserts(createPetRepository(db, schema), db, schema)));
  const orders = timed(createOrderRepository(db, schema));
  const now = () => new Date(clock.now());
  const apiKeys = createApiKeyStore(options.db, { clock, schema });
  const authenticator = createAuthenticator({ keys: apiKeys, clock });
  const idempotency = createIdempotencyStore({ db, clock });
  const deprecatedUsage = createDeprecatedUsageLedger({ db, clock });
  const usage = createUsageLedger({ db, clock, ...options.usage });

  /** Adds a request of a known caller to the usage ledger. */
  function used(caller: Caller, operationId: string, outcome: UsageOutcome, requests = 1) {
    const who = caller.principal ?? caller.key;
    if (!who) return;
    usage.record(caller.principal ? { principalId: caller.principal.id } : { keyId: caller.key!.id }, who.plan, operationId, outcome, requests);
    for (let i = 0; i < requests; i++) metrics?.callCounted?.({ plan: who.plan, operationId, outcome });
  }

  /**
   * The usage ledger's outcome of a failed request, counted under its caller; a server error that came before the key
   * was verified (the database away) under the key its token named when last looked up, since that client got it.
   */
  function usedFailing(caller: Caller, context: CallContext, operationId: string, failed: PetStoreError, requests = 1) {
    if (failed.status >= 500 && !caller.key && !caller.principal && context.apiKey !== undefined) {
      const key = authenticator.lastKnown(context.apiKey);
      if (key) caller.key = key;
    }
    used(caller, operationId, outcomeOf(failed.status, failed.code), requests);
  }

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

  /** Tells `onRequestCounted` of each of `requests` requests counted together. */
  const told = (request: CountedRequest, requests: number) => {
    for (let i = 0; i < requests; i++) onRequestCounted?.(request);
  };

  function refused(error: unknown, key: ApiKeyRecord | undefined, operationId?: OperationId, requests = 1): never {
    if (error instanceof PetStoreError && error.status === 429) told({ key, operationId, refusal: error }, requests);
    throw error;
  }

  /**
   * Verifies the key and counts the request: against the key when valid, else against the client address. While
   * an address is over its limit, a valid key that has succeeded from it in the last 24 hours is served and counted
   * as usual, so strangers sharing the address cannot lock its client out; any other key is refused exactly like a
   * wrong one (a right guess must look like a wrong one) and that refusal is not charged to it.
   */
  async function count(
    context: CallContext,
    meta: ResponseMeta,
    operationId?: OperationId,
    requests = 1,
    caller?: Caller,
  ): Promise<ApiKeyRecord | undefined> {
    const key = await admit(context, meta, operationId, requests, caller);
    if (!key) return undefined;
    meta.rateLimit = await quota
      .consumeKey(subjectOf(key), requests)
      .catch((error: unknown) => refused(error, key, operationId, requests));
    told({ key, operationId }, requests);
    return key;
  }

  /**
   * `count` up to the key's own count: the address rule applied and the key verified. Answers the valid key, counted
   * nothing yet; or undefined once the request was counted against the address, having no valid key. The address
   * rule comes first: while the address is over its limit, a request is refused from the quota's memory of the
   * address and of the tokens known there, with no key look-up and no further count of the address, unless its token
   * is one known there (then it goes on as usual). So a right guess and a wrong one take the same path and time.
   */
  async function admit(
    context: CallContext,
    meta: ResponseMeta,
    operationId?: OperationId,
    requests = 1,
    caller?: Caller,
  ): Promise<ApiKeyRecord | undefined> {
    const token = context.apiKey;
    const address = addressOf(context);
    const countAddress = async () => {
      meta.rateLimit = await quota
        .consumeAddress(address, requests)
        .catch((error: unknown) => refused(error, undefined, operationId, requests));
      told({ key: undefined, operationId }, requests);
      return undefined;
    };
    const addressRefusal = await quota.checkAddress(address).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (addressRefusal !== undefined) {
      // The store failing (503) is no refusal of the address: answered as it is, without waiting on the store again.
      if (!(addressRefusal instanceof PetStoreError && addressRefusal.status === 429)) throw addressRefusal;
      if (token === undefined || !(await quota.knowsToken(token, address))) refused(addressRefusal, undefined, operationId, requests);
    }
    if (token === undefined) return countAddress();
    const key = await authenticator.verify(token);
    if (!key) return countAddress();
    meta.keyId = key.id;
    // Only now is the request the key's: a refusal by the address rule is not charged to it, nor in its usage.
    if (caller) caller.key = key;
    return key;
  }

  /** The 401 of a request that has no valid key: none sent, or one that names no usable key. */
  async function withoutKey(context: CallContext): Promise<PetStoreError> {
    return context.apiKey === undefined ? new PetStoreError('missing_api_key') : invalidApiKey(await authenticator.explain(context.apiKey));
  }

  /** Counts a request against the principal a host named: no key to verify, no address rule (it is no guess). */
  async function countPrincipal(
    principal: Principal,
    meta: ResponseMeta,
    operationId?: OperationId,
    requests = 1,
  ): Promise<void> {
    meta.principalId = principal.id;
    meta.rateLimit = await quota
      .consumeKey(quotaSubject(principal, plans), requests)
      .catch((error: unknown) => {
        if (error instanceof PetStoreError && error.status === 429) told({ key: undefined, principal, operationId, refusal: error }, requests);
        throw error;
      });
    told({ key: undefined, principal, operationId }, requests);
  }

  /** An operation answered without error (2xx): its key becomes known at the caller's address. */
  function succeeded(context: CallContext) {
    if (context.apiKey !== undefined) quota.tokenSucceeded(context.apiKey, addressOf(context));
  }

  async function admitBatch(context: CallContext): Promise<void> {
    // A principal is no guess: nothing to verify, and each of its calls is counted on its own.
    if (context.principal) return;
    const meta: ResponseMeta = {};
    try {
      if (!(await admit(context, meta))) throw await withoutKey(context);
    } catch (error) {
      throw failure(error, meta);
    }
  }

  async function meter(
    context: CallContext,
    requests = 1,
    options: { answered?: ErrorCode | 'served'; refusedWith?: PetStoreError } = {},
  ): Promise<ResponseMeta> {
    const meta: ResponseMeta = {};
    const { refusedWith } = options;
    const answered = options.answered ?? (refusedWith?.code as ErrorCode | undefined) ?? 'not_found';
    const caller: Caller = context.principal ? { principal: context.principal } : {};
    try {
      if (refusedWith) await refusedAlong(context, meta, requests, refusedWith, caller);
      else if (context.principal) await countPrincipal(context.principal, meta, undefined, requests);
      else await count(context, meta, undefined, requests, caller);
      used(caller, 'unmatched', answered === 'served' ? 'served' : outcomeOf(errorCodes[answered].status, answered), requests);
      return meta;
    } catch (error) {
      const failed = failure(error, meta);
      usedFailing(caller, context, 'unmatched', failed, requests);
      throw failed;
    }
  }

  /** See `meter`'s `refusedWith`: the caller known (its key verified, the address rule applied), nothing counted. */
  async function refusedAlong(context: CallContext, meta: ResponseMeta, requests: number, refusal: PetStoreError, caller: Caller) {
    if (context.principal) {
      meta.principalId = context.principal.id;
      told({ key: undefined, principal: context.principal, refusal }, requests);
      return;
    }
    const key = await admit(context, meta, undefined, requests, caller);
    if (key) told({ key, refusal }, requests);
  }

  /**
   * Admits a call of an operation with a limit of its own (`getUsage`): the key verified and the address rule
   * applied as for any call, then the caller's standing read (a banned caller gets its usual 429), then the call
   * counted against the operation's own limit, never the plan's windows, which the answer's headers show.
   */
  async function countOwn(context: CallContext, meta: ResponseMeta, op: OperationDefinition, caller: Caller) {
    const operationId = op.operationId as OperationId;
    let subject: QuotaSubject;
    if (context.principal) {
      caller.principal = context.principal;
      meta.principalId = context.principal.id;
      subject = quotaSubject(context.principal, plans);
    } else {
      const key = await admit(context, meta, operationId, 1, caller);
      if (!key) throw await withoutKey(context);
      subject = subjectOf(key);
    }
    const standing = await quota.standing(subject);
    if (standing.bannedUntil !== undefined) throw banRefusal(standing.windows, standing.bannedUntil, clock.now());
    await quota.consumeOwn(subject, operationId, op.ownLimitPerMinute!).catch((error: unknown) => refused(error, caller.key, operationId));
    meta.rateLimit = standing.windows;
    return standing;
  }

  /** The body of `getUsage` for a caller admitted by {@link countOwn}. */
  async function standingOf(caller: Caller, windows: RateLimitWindow[], bannedUntil: number | undefined): Promise<Usage> {
    const day = utcDay(clock.now());
    const who = caller.principal ? { principalId: caller.principal.id } : { keyId: caller.key!.id };
    const rows = await usage.query({ from: day, to: day, ...who });
    const zero = () => ({ served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 });
    const today = { day, ...zero(), operations: [] as ({ operationId: string } & ReturnType<typeof zero>)[] };
    for (const row of rows) {
      let entry = today.operations.find((one) => one.operationId === row.operationId);
      if (!entry) today.operations.push((entry = { operationId: row.operationId, ...zero() }));
      for (const outcome of ['served', 'unmetered', 'rateLimited', 'banned', 'clientErrors', 'serverErrors'] as const) {
        entry[outcome] += row[outcome];
        today[outcome] += row[outcome];
      }
    }
    return {
      plan: (caller.principal ?? caller.key)!.plan,
      windows: windows
        .filter((window) => window.name === 'minute' || window.name === 'day')
        .map(({ name, limit, remaining, resetAt }) => ({ name: name as 'minute' | 'day', limit, remaining, reset: resetAt })),
      bannedUntil: bannedUntil === undefined ? null : new Date(bannedUntil).toISOString(),
      today,
    };
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

  /**
   * Admits a conditional read (`If-None-Match`) without counting it: the key verified and the address rule applied as
   * for any call, then its standing read. A banned key gets its 429. Answers the key, and whether its count waits for
   * the answer's ETag (`pending`); a key with a spent window is not pending: it is counted as usual, and so refused.
   */
  async function admitRevalidation(context: CallContext, meta: ResponseMeta, operationId: OperationId, caller: Caller) {
    const key = await admit(context, meta, operationId, 1, caller);
    if (!key) throw await withoutKey(context);
    const standing = await quota.standing(subjectOf(key));
    if (standing.bannedUntil !== undefined) refused(banRefusal(standing.windows, standing.bannedUntil, clock.now()), key, operationId);
    if (standing.windows.some((window) => window.remaining <= 0)) return { key, pending: false };
    meta.rateLimit = standing.windows;
    return { key, pending: true };
  }

  /** Counts a key's request against its windows, as `count` does once the key is known. */
  async function consume(key: ApiKeyRecord, meta: ResponseMeta, operationId: OperationId) {
    meta.rateLimit = await quota.consumeKey(subjectOf(key)).catch((error: unknown) => refused(error, key, operationId));
    told({ key, operationId }, 1);
  }

  async function run(operationId: OperationId, readInput: InputReader, context: CallContext): Promise<Outcome<any>> {
    const meta: ResponseMeta = {};
    const op = operations[operationId] as OperationDefinition;
    const caller: Caller = {};
    try {
      const { principal } = context;
      const own = op.ownLimitPerMinute === undefined ? undefined : await countOwn(context, meta, op, caller);
      const revalidates = !own && !principal && op.conditional === true && !op.writes && context.ifNoneMatch !== undefined;
      const revalidation = revalidates ? await admitRevalidation(context, meta, operationId, caller) : undefined;
      if (revalidation && !revalidation.pending) await consume(revalidation.key, meta, operationId);
      const key = own ? caller.key : principal ? undefined : revalidation ? revalidation.key : await count(context, meta, operationId, 1, caller);
      if (own) {
        // Admitted by its own limit.
      } else if (principal) {
        caller.principal = principal;
        await countPrincipal(principal, meta, operationId);
      } else if (!key) throw await withoutKey(context);
      if (op.deprecation) {
        if (key) deprecatedUsage.record(key.id, operationId);
        meta.deprecation = op.deprecation;
        if (clock.now() >= op.deprecation.sunset.getTime()) {
          throw new PetStoreError(
            'gone',
            `This operation was removed on ${op.deprecation.sunset.toUTCString()}; use GET ${op.deprecation.successor}.`,
          );
        }
      }
      const idempotencyKey = op.writes && key ? context.idempotencyKey : undefined;
      const ifMatch = op.writes && op.conditional ? context.ifMatch : undefined;
      const input = validateWithIdempotencyKey(op.input, await readInput({ rateLimit: meta.rateLimit ?? [] }), idempotencyKey);
      const standing = () => standingOf(caller, own?.windows ?? meta.rateLimit ?? [], own?.bannedUntil);
      // Whose orders the caller's are: a rolled key's are its rotation's first key's.
      const owner = caller.principal ? `p:${caller.principal.id}` : `k:${subjectOf(caller.key!).id}`;
      const handle = (pets: PetRepository, orders: OrderRepository) =>
        op.run(input, { pets, orders, owner, now, meta, cached: pages.get, standing, ifMatch });
      if (idempotencyKey === undefined) {
        const data = await handle(pets, orders);
        if (op.writes) pages.invalidate();
        if (revalidation?.pending) {
          // A match is answered 304, counted against no window (DECISIONS "The store changes"); anything else counts.
          if (meta.etag !== undefined && noneMatchFails(context.ifNoneMatch!, meta.etag)) meta.notModified = true;
          else await consume(revalidation.key, meta, operationId);
        }
        if (key) succeeded(context);
        used(caller, operationId, 'served');
        return { data, meta };
      }
      // The condition is part of the request a key names: the same key with another If-Match is another request.
      const hashed = ifMatch === undefined ? input : { input, ifMatch };
      const result = await idempotency.run(
        { apiKeyId: key!.id, key: idempotencyKey, operationId, input: hashed, status: op.successStatus, meta },
        (trx) => handle(traced(createPetRepository(trx, schema)), createOrderRepository(trx, schema)),
      );
      if (result.replayed) {
        meta.replayed = true;
        if (result.etag !== undefined) meta.etag = result.etag;
      } else pages.invalidate();
      succeeded(context);
      used(caller, operationId, 'served');
      return { data: result.data, meta };
    } catch (error) {
      const failed = failure(error, meta);
      usedFailing(caller, context, operationId, failed);
      throw failed;
    }
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
    close: async () => {
      await Promise.all([deprecatedUsage.close(), usage.close()]);
    },
    apiKeys,
    clock,
  } satisfies PetStore);
}
