import { tableText } from '../storage/schema.js';
import { failureOf, type Counters } from './counters.js';

/**
 * The part of a `pg` Pool the quota uses: pass the pool itself.
 * @example createQuota({ store: 'postgres', pool: new pg.Pool({ connectionString }) })
 */
export interface PostgresPoolLike {
  query(config: { text: string; values?: unknown[] }): Promise<{ rowCount: number | null; rows: unknown[] }>;
}

/** The table migration 002 creates: key, points, expire (ms since the epoch, wall clock). */
export const RATE_LIMITS_TABLE = 'rate_limits';

// Every statement is unnamed and runs alone (its own implicit transaction), so the counters work through PgBouncer in
// transaction pooling: a named prepared statement lives on one server connection, and the next transaction may get
// another (42P05 "already exists", 26000 "does not exist"). The table is named with its schema in the text itself,
// never through `search_path`, which is session state a pooler does not keep.

/** The statements of the counters, on `table` (its name as SQL, schema-qualified or not). */
function statements(table: string) {
  // Adds $2 under $1; an expired entry starts again from $2 and lives until $3. $4 is now.
  const increment = `
  insert into ${table} as t values ($1::varchar, $2::integer, $3::bigint)
  on conflict (key) do update set
    points = case when t.expire <= $4::bigint then excluded.points else t.points + excluded.points end,
    expire = case when t.expire <= $4::bigint then excluded.expire else t.expire end
  returning points`;
  return {
    increment,
    // The increment above per window, the day's amount being the part of the minute's that fits: $1 minute key, $2
    // amount, $3 its expiry, $4 now, $5 day key, $6 its expiry, $7 requests per minute.
    incrementWindows: `
  with minute as (${increment}
  ), day as (
    insert into ${table} as t
    select $5::varchar, least($2::integer, greatest(0, $7::integer - (minute.points - $2::integer))), $6::bigint from minute
    on conflict (key) do update set
      points = case when t.expire <= $4::bigint then excluded.points else t.points + excluded.points end,
      expire = case when t.expire <= $4::bigint then excluded.expire else t.expire end
    returning points
  )
  select minute.points as minute, day.points as day from minute, day`,
    read: `select points from ${table} where key = $1::varchar and expire > $2::bigint`,
    // The rows whose name ends in $1 (reversed, with LIKE's own characters escaped, then %), by the partial index of
    // migration 2026-12-03-042; at most $3.
    readKnownAt: `select key, points from ${table} where key like 'k:%' and reverse(key::text) like $1::text and expire > $2::bigint limit $3::integer`,
    write: `
  insert into ${table} values ($1::varchar, $2::integer, $3::bigint)
  on conflict (key) do update set points = excluded.points, expire = excluded.expire`,
    clearExpired: `delete from ${table} where expire < $1::bigint`,
  };
}

/**
 * Counters in the `rate_limits` table (of `schema`, when given), shared by every instance on the database. Expired
 * rows are deleted every `clearExpiredEveryMs` by an unref'd timer that `close()` stops; the table itself comes from
 * the migrations.
 * @example const counters = createPostgresCounters(pool, 300_000)
 */
export function createPostgresCounters(pool: PostgresPoolLike, clearExpiredEveryMs = 300_000, schema?: string): Counters {
  const { increment, incrementWindows, read, readKnownAt, write, clearExpired: clearExpiredText } = statements(tableText(schema, RATE_LIMITS_TABLE));
  const storeFailure = failureOf(undefined);
  const query = (text: string, values: unknown[]) => pool.query({ text, values }).catch(storeFailure);
  // `expire` is written from the wall clock, so expiry is judged by the wall clock too; the window a count belongs
  // to is in its key, from the quota's clock.
  const clearExpired = async () => (await pool.query({ text: clearExpiredText, values: [Date.now()] })).rowCount ?? 0;
  const timer = setInterval(() => void clearExpired().catch(() => {}), clearExpiredEveryMs);
  timer.unref();
  return {
    async increment(key, seconds, amount = 1) {
      const now = Date.now();
      const result = await query(increment, [key, amount, now + seconds * 1000, now]);
      return Number((result.rows[0] as { points: number }).points);
    },
    async incrementWindows(minute, day, amount, perMinute) {
      const now = Date.now();
      const values = [minute.key, amount, now + minute.seconds * 1000, now, day.key, now + day.seconds * 1000, perMinute];
      const row = (await query(incrementWindows, values)).rows[0] as { minute: number; day: number };
      return { minute: Number(row.minute), day: Number(row.day) };
    },
    async read(key) {
      const row = (await query(read, [key, Date.now()])).rows[0] as { points: number } | undefined;
      return row ? Number(row.points) : undefined;
    },
    async readKnownAt(address, max) {
      const suffix = `:${address}`;
      const pattern = `${[...suffix].reverse().join('').replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const { rows } = await query(readKnownAt, [pattern, Date.now(), max + 1]);
      if (rows.length > max) return undefined;
      const known = new Map<string, number>();
      for (const row of rows as { key: string; points: number }[]) {
        // `k:` and a digest of 22 characters, then exactly this address.
        if (row.key.length === 24 + suffix.length) known.set(row.key, Number(row.points));
      }
      return known;
    },
    async write(key, value, seconds) {
      await query(write, [key, value, Date.now() + seconds * 1000]);
    },
    clearExpired,
    close: async () => clearInterval(timer),
  };
}
