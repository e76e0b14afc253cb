import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, failureOf, type Counters } from './counters.js';

/**
 * The part of a `pg` Pool the quota uses: pass the pool itself.
 * @example createQuota({ store: 'postgres', pool: new pg.Pool({ connectionString }) })
 */
export interface PostgresPoolLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rowCount: number | null; rows: unknown[] }>;
}

/** The table migration 002 creates, with the columns rate-limiter-flexible expects: key, points, expire (ms). */
export const RATE_LIMITS_TABLE = 'rate_limits';

// One upsert per window, as rate-limiter-flexible writes them (an expired entry starts again from the amount), the
// day's amount being the part of the minute's that fits: $1 minute key, $2 amount, $3 its expiry, $4 now, $5 day
// key, $6 its expiry, $7 requests per minute.
const INCREMENT_WINDOWS = `
  with minute as (
    insert into ${RATE_LIMITS_TABLE} as t values ($1::varchar, $2::integer, $3::bigint)
    on conflict (key) do update set
      points = case when t.expire <= $4::bigint then excluded.points else t.points + excluded.points end,
      expire = case when t.expire <= $4::bigint then excluded.expire else t.expire end
    returning points
  ), day as (
    insert into ${RATE_LIMITS_TABLE} as t
    select $5::varchar, least($2::integer, greatest(0, $7::integer - (minute.points - $2::integer))), $6::bigint from minute
    on conflict (key) do update set
      points = case when t.expire <= $4::bigint then excluded.points else t.points + excluded.points end,
      expire = case when t.expire <= $4::bigint then excluded.expire else t.expire end
    returning points
  )
  select minute.points as minute, day.points as day from minute, day`;

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
  const counters = countersOn(limiter, { clearExpired, close: async () => clearInterval(timer) });
  const storeFailure = failureOf(undefined);
  return {
    ...counters,
    async incrementWindows(minute, day, amount, perMinute) {
      const now = Date.now();
      const values = [minute.key, amount, now + minute.seconds * 1000, now, day.key, now + day.seconds * 1000, perMinute];
      const result = await pool.query({ name: 'petstore-increment-windows', text: INCREMENT_WINDOWS, values }).catch(storeFailure);
      const row = result.rows[0] as { minute: number; day: number };
      return { minute: Number(row.minute), day: Number(row.day) };
    },
  };
}
