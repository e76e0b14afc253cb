import {
  createPetStore,
  createQuota,
  DEFAULT_REDIS_KEY_PREFIX,
  type Database,
  defaultSchema,
  migrateToLatest,
  operations,
  systemClock,
  timedCalls,
  type ClosableQuota,
  type Clock,
  type Limits,
  type OperationId,
  type OperationMethods,
  type PetStore,
  type PetStoreOptions,
  type PlanName,
  type QuotaOptions,
} from '@petstore/core';
import {
  createWebhookTransport,
  openDatabase,
  openHostDatabase,
  openRedis,
  redisTakesWrites,
  type DatabaseOptions,
  type HostPool,
  type OpenDatabase,
  unreachableDatabase,
} from '@petstore/drivers';
import { tracingApi } from '@petstore/core/opentelemetry';
import type { Kysely } from 'kysely';

type Redis = Awaited<ReturnType<typeof openRedis>>;

/** A key made to exist at start-up (`PETSTORE_API_KEYS`), stored hashed. */
export interface ConfiguredApiKey {
  key: string;
  plan: PlanName;
  /** Enterprise limits. */
  limits?: Limits;
}

/** The store on a database it opens itself: PostgreSQL at `databaseUrl`, else the embedded one in `dataDir`. */
export interface OwnDatabaseOptions extends DatabaseOptions {
  pool?: undefined;
  db?: undefined;
  acquireTimeoutMs?: undefined;
}

/** The store on the host's own PostgreSQL pool (a `pg` Pool); not with `db`, `databaseUrl` or `dataDir`. */
export interface HostPoolOptions {
  /**
   * The host's own PostgreSQL pool (a `pg` Pool), used instead of `databaseUrl` and `dataDir`; `close()` leaves it
   * open, and its `error` listener (for idle clients) stays the host's to attach. A client the store holds has a
   * listener of the store's until released, so a connection lost then is a 503 `unavailable`, never an unhandled
   * `error` event. Each connection is waited for at most `acquireTimeoutMs`, whatever the pool's own
   * `connectionTimeoutMillis` (pg's default, 0, waits for ever): then 503 `unavailable`.
   */
  pool: HostPool;
  /** How long a statement waits for a connection of the host's pool before it answers 503 `unavailable`. Default 5 s. */
  acquireTimeoutMs?: number | undefined;
  db?: undefined;
  databaseUrl?: undefined;
  dataDir?: undefined;
  poolSize?: undefined;
}

/** The store on the host's own Kysely on PostgreSQL; not with `pool`, `databaseUrl` or `dataDir`. */
export interface HostKyselyOptions {
  /**
   * The host's own Kysely on PostgreSQL, used (without its plugins) instead of `databaseUrl` and `dataDir`; `close()`
   * never destroys it. Each connection of its pool is waited for at most `acquireTimeoutMs`, as with `pool`, whatever
   * the pool's own timeout: then 503 `unavailable`. kysely keeps its `pg` clients to itself, so the store cannot listen
   * to them as it does on `pool`: give each client of the pool an `error` listener where you make it
   * (`pool.on('connect', (client) => client.on('error', () => {}))`), or give the store `pool` instead. Without one,
   * a connection lost while a client is checked out (the store's or your own transaction's) ends the process.
   */
  db: Kysely<any>;
  /** How long a statement waits for a connection of the host's Kysely before it answers 503 `unavailable`. Default 5 s. */
  acquireTimeoutMs?: number | undefined;
  pool?: undefined;
  databaseUrl?: undefined;
  dataDir?: undefined;
  poolSize?: undefined;
}

/** Everything {@link openPetStore} needs: one database (its own, or the host's pool or Kysely), and the rest. */
export type OpenPetStoreOptions = StoreOptions & (OwnDatabaseOptions | HostPoolOptions | HostKyselyOptions);

/** What {@link openPetStore} takes besides the database; all optional. */
export interface StoreOptions {
  /**
   * The PostgreSQL schema of every table of the store and of its migration records (`petstore_migration`), made if
   * missing: the store then sits beside a host's own tables of the same names. Unset: the schema a fresh session's
   * `search_path` gives (`public`), read once at opening; every statement names it either way, so no session state
   * (a `search_path` a pooled connection was left with) changes where the store reads and writes.
   */
  schema?: string | undefined;
  /**
   * Whether to bring the store's tables up to date on opening (default `true`). `false` when the host's own kysely
   * `Migrator` runs `petStoreMigrations({ schema })`, recording them in its own tables; opening then fails, naming
   * the fix, when the store's tables are not there.
   */
  migrate?: boolean | undefined;
  /**
   * The program opening the store, as `name@version` (`@petstore/server@1.4.0`): recorded in the database on each
   * start, and named by an earlier release that finds the database migrated beyond it (it refuses to start).
   * Default `@petstore/core@` its version.
   */
  release?: string | undefined;
  clock?: Clock;
  /** Keys made to exist at start-up. */
  apiKeys?: readonly ConfiguredApiKey[];
  /**
   * Where quota counters live: `memory` (one process; the default on the embedded database, where they are also
   * kept in the database, written every second and on `close()`, so a restart keeps them), `postgres` (shared
   * by every instance on one database; the default with `databaseUrl`, `pool` or `db`), `redis` (shared by every
   * instance on the Redis at `redisUrl`), or `none` to count nothing.
   */
  rateLimitStore?: 'memory' | 'postgres' | 'redis' | 'none';
  /** `redis://…` or `rediss://…`: the Redis (or Valkey) server of the `redis` store. */
  redisUrl?: string | undefined;
  /** Prefix of the counters' Redis keys, for deployments that share one Redis. Default `petstore`. */
  redisKeyPrefix?: string | undefined;
  /**
   * With the `redis` store: told why when Redis cannot be reached at opening, and the store opens all the same,
   * answering 503 `unavailable` to counted requests until Redis returns (the client reconnects by itself). Without
   * it, opening throws.
   */
  onRedisUnreachable?: ((error: Error) => void) | undefined;
  /** Ban threshold and duration, per-address limit. */
  quota?: QuotaOptions;
  /** Told of every counted request (for logs and metrics). */
  onRequestCounted?: PetStoreOptions['onRequestCounted'];
  /**
   * Told of 429s, deprecated calls and, on PostgreSQL opened by `databaseUrl`, the waits for the database (give the
   * handler the same object for requests and durations).
   */
  metrics?: PetStoreOptions['metrics'];
  /** OpenTelemetry tracer provider of the store's spans: the global one by default; `false` for none. */
  tracerProvider?: PetStoreOptions['tracerProvider'];
  /** The usage ledger's flush interval (its delay, 5000 ms by default) and the UTC days it keeps (400 by default). */
  usage?: PetStoreOptions['usage'];
  /**
   * Webhooks (DECISIONS "Events"): whether private and `http://` targets are allowed (`allowPrivate`, for development
   * and tests), the retry schedule, and the bounds of this instance's delivery worker. Deliveries go out through
   * `createWebhookTransport` of `@petstore/drivers` unless `transport` names another. `deliver: false`: this process
   * sends none (a key tool, a one-off script: the service's instances do), and starts no delivery worker.
   */
  webhooks?: (PetStoreOptions['webhooks'] & { deliver?: boolean | undefined }) | undefined;
}

/** An open pet store with its database (and its Redis client, with the `redis` store). */
export interface OpenPetStore {
  store: PetStore;
  database: OpenDatabase;
  /**
   * The PostgreSQL schema of the store's tables, named in each of its statements: `schema` as given, else the one a
   * fresh session's `search_path` gives (`public`), read once at opening. Give it to stores built beside this one.
   * @example createDomainStore(service.database.db, { schema: service.schema })
   */
  schema: string;
  /**
   * Whether a dependency answers now: `database`, or `redis` with the redis store (its `PING`). For outage logs.
   * @example if (!(await service.probe('redis'))) log('still down')
   */
  probe(dependency: string): Promise<boolean>;
  /**
   * What every request needs, by name, each with its check: `database`, and `redis` with the redis store. Give it to
   * the handler (`dependencies`) so `/healthz` checks them all.
   * @example createHttpHandler(service.store, { dependencies: service.dependencies })
   */
  readonly dependencies: Readonly<Record<string, () => Promise<boolean>>>;
  /** Closes the quota store, its Redis client and the database it opened (a host's pool or Kysely stays open). */
  close(): Promise<void>;
}

/**
 * Opens the database (the host's `db` or `pool`, else `databaseUrl`, else the embedded one in `dataDir`), brings the
 * store's tables up to date in `schema`, seeds the configured keys and builds the pet store. A database that cannot be
 * reached then (refused, lost, no connection within `acquireTimeoutMs`), with `migrate: false` too, throws
 * `PetStoreError('unavailable')` naming it by host, port and database (never a password), with the driver's error as
 * `cause`, and leaves nothing open: the host retries when it chooses. The store does not open lazily.
 * @example const { store, close } = await openPetStore({ dataDir: 'memory://' })
 */
export async function openPetStore(options: OpenPetStoreOptions = {}): Promise<OpenPetStore> {
  const databases = (['pool', 'db', 'databaseUrl', 'dataDir'] as const).filter((name) => options[name] !== undefined);
  if ((options.pool !== undefined || options.db !== undefined) && databases.length > 1) {
    throw new TypeError(
      `openPetStore takes one database: ${databases.join(' and ')} were given together. Give the host's pool, or its ` +
        'Kysely, or databaseUrl/dataDir for a database of the store\'s own.',
    );
  }
  if (options.rateLimitStore === 'redis' && !options.redisUrl) {
    throw new Error('The redis rate-limit store needs a Redis server (REDIS_URL).');
  }
  // A provider without the OpenTelemetry API is refused before anything opens.
  if (options.tracerProvider) tracingApi(options.tracerProvider, 'Tracing the store (tracerProvider)');
  const host =
    options.db || options.pool ? openHostDatabase({ db: options.db, pool: options.pool, acquireTimeoutMs: options.acquireTimeoutMs }) : undefined;
  const waited = options.metrics?.databaseWait?.bind(options.metrics);
  const onWait = waited ? (stage: 'acquire' | 'statement', seconds: number) => waited({ stage, seconds }) : undefined;
  const database: OpenDatabase = host ?? (await openDatabase({ ...options, onWait }));
  const statements = host ? host.statements : (database.statements ?? database.pool);
  let redis: Redis | undefined;
  let quota: ClosableQuota | undefined;
  // A database that cannot be reached while the store opens is the host's PetStoreError('unavailable'), naming it.
  const reached = <T>(step: Promise<T>) =>
    step.catch((error: unknown) => {
      throw database.isUnavailable(error) ? unreachableDatabase(error, options) : error;
    });
  try {
    // Named in every statement from here on: a session's `search_path` (which a pooler hands on from whoever used the
    // connection before, pg_dump included) never decides where the store reads and writes.
    const schema = options.schema ?? (await reached(defaultSchema(database.db)));
    if (options.migrate !== false) await reached(migrateToLatest(database.db, { schema, release: options.release }));
    else await reached(expectTables(database.db, schema));
    const clock = options.clock ?? systemClock;
    const storeKind = options.rateLimitStore ?? (statements ? 'postgres' : 'memory');
    if (storeKind === 'postgres' && !statements) {
      throw new Error('The postgres rate-limit store needs PostgreSQL (DATABASE_URL); the embedded database uses "memory".');
    }
    redis = storeKind === 'redis' ? await openRedis(options.redisUrl!, { onUnreachable: options.onRedisUnreachable }) : undefined;
    quota =
      storeKind === 'none'
        ? undefined
        : storeKind === 'postgres'
          ? createQuota({ clock, store: 'postgres', pool: statements!, schema }, options.quota)
          : redis
            ? createQuota(
                { clock, store: 'redis', client: redis, ...(options.redisKeyPrefix ? { keyPrefix: options.redisKeyPrefix } : {}) },
                options.quota,
              )
            : // On the embedded database, which only this process opens, the counts outlive a restart.
              createQuota({ clock, store: 'memory', ...(database.kind === 'pglite' ? { keep: { db: database.db, schema } } : {}) }, options.quota);
    await quota?.ready();
    // On PostgreSQL each request's count waits for the database, alone or with the key's other requests: timed as
    // the repositories are (PetStoreMetrics `databaseWait`, stage `call`).
    const waited = options.metrics?.databaseWait ? (seconds: number) => options.metrics!.databaseWait!({ stage: 'call', seconds }) : undefined;
    const counted = quota && storeKind === 'postgres' && waited ? timedCalls(quota, waited, ['tokenSucceeded', 'ready', 'close']) : quota;
    const store = createPetStore({
      db: database.db,
      schema,
      isUnavailable: database.isUnavailable,
      clock,
      ...(counted ? { quota: counted } : {}),
      ...(options.onRequestCounted ? { onRequestCounted: options.onRequestCounted } : {}),
      metrics: options.metrics,
      tracerProvider: options.tracerProvider,
      usage: options.usage,
      // Deliveries go through the drivers' transport unless the host gives its own (a resolver of its own, say).
      webhooks: {
        // The embedded folder is held by this process alone: a dead process's leases need not be waited out.
        soleWorker: database.kind === 'pglite',
        ...options.webhooks,
        transport:
          options.webhooks?.deliver === false
            ? undefined
            : (options.webhooks?.transport ?? createWebhookTransport({ allowPrivate: options.webhooks?.allowPrivate ?? false })),
      },
    });
    for (const { key, plan, limits } of options.apiKeys ?? []) {
      await reached(store.apiKeys.ensure(key, { plan, ...(limits ? { limits } : {}) }));
    }
    const client = redis;
    const isDatabaseHealthy = () => store.isHealthy();
    const dependencies: Record<string, () => Promise<boolean>> = { database: isDatabaseHealthy };
    const redisUp = () => (client ? redisTakesWrites(client, options.redisKeyPrefix || DEFAULT_REDIS_KEY_PREFIX) : Promise.resolve(false));
    if (client) dependencies.redis = redisUp;
    Object.freeze(dependencies);
    let closed = false;
    return {
      store: refusingOnceClosed(store, () => closed),
      database,
      schema,
      dependencies,
      async probe(dependency) {
        if (dependency !== 'redis') return store.isHealthy();
        return redisUp();
      },
      async close() {
        closed = true;
        await store.close().catch(() => {});
        try {
          await quota?.close();
        } finally {
          redis?.disconnect();
          await database.close();
        }
      },
    };
  } catch (error) {
    await quota?.close().catch(() => {});
    redis?.disconnect();
    await database.close().catch(() => {});
    throw error;
  }
}

/**
 * With `migrate: false` the host's Migrator brings the tables: if it has not, opening says so, instead of every call
 * failing later with PostgreSQL's `relation "pets" does not exist` (42P01).
 */
async function expectTables(db: Kysely<Database>, schema: string | undefined) {
  try {
    await (schema ? db.withSchema(schema) : db).selectFrom('pets').select('id').limit(1).execute();
  } catch (error) {
    if ((error as { code?: unknown }).code !== '42P01') throw error;
    const where = schema ? `schema ${schema}` : 'the current schema';
    throw new Error(
      `The store's tables are not in ${where}, and migrate: false leaves them to your Migrator: run ` +
        `petStoreMigrations(${schema ? `{ schema: '${schema}' }` : ''}) in it first, or open without migrate: false.`,
      { cause: error },
    );
  }
}

/** Thrown by a store's calls after `close()`: a mistake of the host, not an outage of the database. */
export class StoreClosedError extends Error {
  constructor() {
    super('This pet store was closed (close() was called): open another one to call it.');
    this.name = 'StoreClosedError';
  }
}

/** The store, refusing its calls once closed: over HTTP that is a 500 with this cause, never a 503 `unavailable`. */
function refusingOnceClosed(store: PetStore, isClosed: () => boolean): PetStore {
  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      isClosed() ? Promise.reject(new StoreClosedError()) : call(...args);
  // Every operation's method, from the registry: a new operation is refused once closed without a line here.
  const methods = Object.fromEntries(
    (Object.keys(operations) as OperationId[]).map((id) => [id, guarded(store[id] as (...args: unknown[]) => Promise<unknown>)]),
  ) as unknown as OperationMethods;
  return Object.freeze({
    ...store,
    ...methods,
    call: guarded(store.call),
    meter: guarded(store.meter),
  });
}
