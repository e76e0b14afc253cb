import { isDatabaseUnavailable, type Database, type PostgresPoolLike } from '@petstore/core';
import { CompiledQuery, Kysely, type PostgresPool } from 'kysely';
import { ACQUIRE_TIMEOUT_MS, boundedAcquire } from './bounded-acquire.js';
import { listenWhileHeld } from './listen-while-held.js';
import type { OpenDatabase } from './open-database.js';
import { createPostgresDialect } from './storage/postgres-dialect.js';

/**
 * What the store uses of a host's PostgreSQL pool: a `pg` Pool has it all (kysely's `PostgresPool` to check out
 * connections, `query` for the quota's counters). Typed by shape, so the store's types need no `@types/pg`.
 * @example const pool: HostPool = new pg.Pool({ connectionString })
 */
export type HostPool = Pick<PostgresPool, 'connect'> & PostgresPoolLike;

/** The database a host already has: its pool, or its Kysely on PostgreSQL (one of the two). */
export interface HostDatabaseOptions {
  pool?: HostPool | undefined;
  db?: Kysely<any> | undefined;
  /**
   * How long a statement waits for a connection of the host's pool (or its Kysely's) before it answers 503
   * `unavailable`, whatever the pool's own timeout. Default 5 s ({@link ACQUIRE_TIMEOUT_MS}).
   */
  acquireTimeoutMs?: number | undefined;
}

type PoolClient = Awaited<ReturnType<PostgresPool['connect']>>;

/**
 * A host's Kysely as a pool the store checks connections out of: each `connect` is one of the Kysely's own
 * connections (`db.connection()`, from its pool), held until released, so the store can bound the wait for it as it
 * does on a `pg` Pool (kysely's driver would wait as long as the pool does: for ever with `pg`'s defaults).
 */
function poolOfKysely(db: Kysely<any>): Pick<PostgresPool, 'connect'> {
  return {
    connect: () =>
      new Promise<PoolClient>((resolve, reject) => {
        db.connection()
          .execute(
            (connection) =>
              new Promise<void>((release) => {
                const client = {
                  async query(text: string, values: readonly unknown[]) {
                    const result = await connection.executeQuery(CompiledQuery.raw(text, [...values]));
                    const changed = result.numAffectedRows;
                    // kysely's PostgreSQL connection reads `command` and `rowCount` back into numAffectedRows.
                    return changed === undefined
                      ? { command: 'SELECT', rowCount: result.rows.length, rows: result.rows }
                      : { command: 'UPDATE', rowCount: Number(changed), rows: result.rows };
                  },
                  release: () => release(),
                };
                resolve(client as unknown as PoolClient);
              }),
          )
          .catch(reject);
      }),
  };
}

/** A host's database as the store sees it; closing it leaves the host's pool or Kysely open. */
export interface HostDatabase extends OpenDatabase {
  /** Runs the quota's counter statements on the host's pool or Kysely, each one alone. */
  statements: PostgresPoolLike;
}

/**
 * The quota's statements on a host's pool, each on a connection checked out within the store's bound (`pool.query`
 * would wait for one as long as the pool does: for ever with `pg`'s defaults).
 */
function statementsOnPool(connect: ReturnType<typeof boundedAcquire>): PostgresPoolLike {
  return {
    async query({ text, values = [] }) {
      const client = await connect();
      try {
        const result = await client.query(text, values);
        return { rowCount: result.rowCount === undefined ? null : Number(result.rowCount), rows: result.rows };
      } finally {
        // `pg` itself drops a connection that was lost rather than handing it out again.
        client.release();
      }
    },
  };
}

/**
 * Opens the store on a database the host owns. A pool is wrapped in the store's own Kysely, with the PostgreSQL
 * dialect of `openDatabase` (unnamed statements and a migration lock that are safe behind PgBouncer), and every
 * connection is checked out within `acquireTimeoutMs` (5 s), whatever the pool's own timeout: an exhausted pool
 * answers 503 `unavailable`, never hangs. A host's Kysely is the same, its connections checked out one by one through
 * `db.connection()` (without its plugins). `close()` never ends the pool nor destroys the host's Kysely: after it the
 * store's own Kysely refuses statements, and the host's pool serves on. The host keeps its pool's `error` listener;
 * each client the store checks out of a pool has one of the store's while held ({@link listenWhileHeld}), so a lost
 * connection is a 503, never an unhandled `error` event. A Kysely's clients are out of reach: their listener is the
 * host's to add (`pool.on('connect', (client) => client.on('error', …))`).
 * @example const database = openHostDatabase({ pool }); createPetStore({ db: database.db })
 */
export function openHostDatabase(host: HostDatabaseOptions): HostDatabase {
  if (!host.pool === !host.db) throw new Error('Give the host database as either a pool or a Kysely instance (one of the two).');
  const pool = host.db ? poolOfKysely(host.db.withoutPlugins()) : listenWhileHeld(host.pool!);
  const connect = boundedAcquire(pool, host.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS);
  // Ours to destroy: its `end` leaves the host's pool open.
  const borrowed: PostgresPool = { connect, end: async () => {} };
  const db = new Kysely<Database>({ dialect: createPostgresDialect({ pool: borrowed }) });
  return { db, kind: 'postgres', isUnavailable: isDatabaseUnavailable, statements: statementsOnPool(connect), close: () => db.destroy() };
}
