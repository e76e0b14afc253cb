import {
  createPetStore,
  createQuota,
  migrateToLatest,
  systemClock,
  type Clock,
  type Limits,
  type PetStore,
  type PetStoreOptions,
  type PlanName,
  type QuotaOptions,
} from '@petstore/core';
import {
  openDatabase,
  openHostDatabase,
  openRedis,
  type DatabaseOptions,
  type HostPool,
  type OpenDatabase,
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

/** Everything {@link openPetStore} needs; all optional. */
export interface OpenPetStoreOptions extends DatabaseOptions {
  /**
   * The host's own PostgreSQL pool (a `pg` Pool), used instead of `databaseUrl` and `dataDir`; `close()` leaves it
   * open, and its `error` listener stays the host's to attach. Not with `db`.
   */
  pool?: HostPool | undefined;
  /**
   * The host's own Kysely on PostgreSQL, used (without its plugins) instead of `databaseUrl` and `dataDir`; `close()`
   * never destroys it. Not with `pool`.
   */
  db?: Kysely<any> | undefined;
  /**
   * The PostgreSQL schema of every table of the store and of its migration records (`petstore_migration`), made if
   * missing: the store then sits beside a host's own tables of the same names. Unset: the current schema (`public`).
   */
  schema?: string | undefined;
  /**
   * Whether to bring the store's tables up to date on opening (default `true`). `false` when the host's own kysely
   * `Migrator` runs `petStoreMigrations({ schema })`, recording them in its own tables.
   */
  migrate?: boolean | undefined;
  clock?: Clock;
  /** Keys made to exist at start-up. */
  apiKeys?: readonly ConfiguredApiKey[];
  /**
   * Where quota counters live: `memory` (one process; the default on the embedded database), `postgres` (shared
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
  /** Told of 429s and deprecated calls (give the handler the same object for requests and durations). */
  metrics?: PetStoreOptions['metrics'];
  /** OpenTelemetry tracer provider of the store's spans: the global one by default; `false` for none. */
  tracerProvider?: PetStoreOptions['tracerProvider'];
}

/** An open pet store with its database (and its Redis client, with the `redis` store). */
export interface OpenPetStore {
  store: PetStore;
  database: OpenDatabase;
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
 * store's tables up to date in `schema`, seeds the configured keys and builds the pet store.
 * @example const { store, close } = await openPetStore({ dataDir: 'memory://' })
 */
export async function openPetStore(options: OpenPetStoreOptions = {}): Promise<OpenPetStore> {
  if (options.rateLimitStore === 'redis' && !options.redisUrl) {
    throw new Error('The redis rate-limit store needs a Redis server (REDIS_URL).');
  }
  // A provider without the OpenTelemetry API is refused before anything opens.
  if (options.tracerProvider) tracingApi(options.tracerProvider, 'Tracing the store (tracerProvider)');
  const { schema } = options;
  const host = options.db || options.pool ? openHostDatabase({ db: options.db, pool: options.pool }) : undefined;
  const database: OpenDatabase = host ?? (await openDatabase(options));
  const statements = host ? host.statements : database.pool;
  let redis: Redis | undefined;
  try {
    if (options.migrate !== false) await migrateToLatest(database.db, { schema });
    const clock = options.clock ?? systemClock;
    const storeKind = options.rateLimitStore ?? (statements ? 'postgres' : 'memory');
    if (storeKind === 'postgres' && !statements) {
      throw new Error('The postgres rate-limit store needs PostgreSQL (DATABASE_URL); the embedded database uses "memory".');
    }
    redis = storeKind === 'redis' ? await openRedis(options.redisUrl!, { onUnreachable: options.onRedisUnreachable }) : undefined;
    const quota =
      storeKind === 'none'
        ? undefined
        : storeKind === 'postgres'
          ? createQuota({ clock, store: 'postgres', pool: statements!, schema }, options.quota)
          : redis
            ? createQuota(
                { clock, store: 'redis', client: redis, ...(options.redisKeyPrefix ? { keyPrefix: options.redisKeyPrefix } : {}) },
                options.quota,
              )
            : createQuota({ clock, store: 'memory' }, options.quota);
    const store = createPetStore({
      db: database.db,
      schema,
      isUnavailable: database.isUnavailable,
      clock,
      ...(quota ? { quota } : {}),
      ...(options.onRequestCounted ? { onRequestCounted: options.onRequestCounted } : {}),
      metrics: options.metrics,
      tracerProvider: options.tracerProvider,
    });
    for (const { key, plan, limits } of options.apiKeys ?? []) {
      await store.apiKeys.ensure(key, { plan, ...(limits ? { limits } : {}) });
    }
    const client = redis;
    const isDatabaseHealthy = () => store.isHealthy();
    const dependencies: Record<string, () => Promise<boolean>> = { database: isDatabaseHealthy };
    if (client) dependencies.redis = () => client.ping().then(() => true, () => false);
    Object.freeze(dependencies);
    return {
      store,
      database,
      dependencies,
      async probe(dependency) {
        if (dependency !== 'redis') return store.isHealthy();
        return client ? client.ping().then(() => true, () => false) : false;
      },
      async close() {
        await store.close().catch(() => {});
        await quota?.close?.();
        redis?.disconnect();
        await database.close();
      },
    };
  } catch (error) {
    redis?.disconnect();
    await database.close().catch(() => {});
    throw error;
  }
}
