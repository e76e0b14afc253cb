import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, type Counters } from './counters.js';

/**
 * The part of a `pg` Pool the quota uses: pass the pool itself.
 * @example createQuota({ store: 'postgres', pool: new pg.Pool({ connectionString }) })
 */
export interface PostgresPoolLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rowCount: number | null }>;
}

/** The table migration 002 creates, with the columns rate-limiter-flexible expects: key, points, expire (ms). */
export const RATE_LIMITS_TABLE = 'rate_limits';

/**
 * Counters in the `rate_limits` table, shared by every instance on the database. Expired rows are deleted every
 * `clearExpiredEveryMs` by an unref'd timer that `close()` stops; the table itself comes from the migrations.
 * @example const counters = createPostgresCounters(pool, 300_000)
 */
export function createPostgresCounters(pool: PostgresPoolLike, clearExpiredEveryMs = 300_000): Counters {
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: RATE_LIMITS_TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: '',
    points: COUNTER_CEILING,
    duration: 60,
  });
  // `expire` is written by the library from the wall clock, so expiry is judged by the wall clock too.
  const clearExpired = async () => {
    const result = await pool.query({
      text: `delete from ${RATE_LIMITS_TABLE} where expire < $1`,
      values: [Date.now()],
    });
    return result.rowCount ?? 0;
  };
  const timer = setInterval(() => void clearExpired().catch(() => {}), clearExpiredEveryMs);
  timer.unref();
  return countersOn(limiter, {
    clearExpired,
    close: async () => clearInterval(timer),
  });
}
