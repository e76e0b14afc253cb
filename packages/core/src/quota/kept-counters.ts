import { sql, type Kysely } from 'kysely';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { tableIn } from '../storage/schema.js';
import { COUNTER_CEILING, countersOn, type Counters } from './counters.js';
import type { MemoryCounters } from './memory-counters.js';
import { RATE_LIMITS_TABLE } from './postgres-counters.js';

/** Where memory counters are kept across restarts: a database only this process writes (the embedded one). */
export interface KeptCountersOptions {
  /** The database of the `rate_limits` table (migration 002). Only this process may write it. */
  db: Kysely<any>;
  /** The schema the store's tables are in; unset, the current one. */
  schema?: string | undefined;
  /** How often what changed is written, in ms: what a `kill -9` can lose. Default 1000. */
  saveEveryMs?: number | undefined;
  /** How often rows that have expired are deleted, in ms. Default 300000. */
  clearExpiredEveryMs?: number | undefined;
}

/** Counters in memory that a restart keeps. */
export interface KeptCounters extends MemoryCounters {
  /** Settles once the counters kept by the last process are back in memory; calls made before wait for it. */
  ready: Promise<void>;
  /** Writes what changed since the last write. */
  save(): Promise<void>;
}

/**
 * Counters in this process's memory, as fast as {@link createMemoryCounters}, kept in the `rate_limits` table so that
 * a restart never gives a key a fresh minute or day: read back when they are made, and every counter that changed is
 * written every `saveEveryMs` and on `close()`, one statement for all of them. Rows have the columns and meaning of
 * the `postgres` store's (`expire` in wall-clock ms), and entries keep their expiry across the restart.
 * @example const counters = createKeptCounters({ db }); await counters.ready
 */
export function createKeptCounters(options: KeptCountersOptions): KeptCounters {
  const { db, schema, saveEveryMs = 1_000, clearExpiredEveryMs = 300_000 } = options;
  const table = tableIn(schema, RATE_LIMITS_TABLE);
  const limiter = new RateLimiterMemory({ keyPrefix: '', points: COUNTER_CEILING, duration: 60 });
  const changed = new Set<string>();
  let saving: Promise<void> = Promise.resolve();

  const clearExpired = async () => {
    const result = await sql`delete from ${table} where expire < ${Date.now()}`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  };

  async function load() {
    await clearExpired();
    const now = Date.now();
    const { rows } = await sql<{ key: string; points: number; expire: number | string }>`
      select key, points, expire from ${table} where expire > ${now}`.execute(db);
    for (const row of rows) await limiter.set(row.key, Number(row.points), (Number(row.expire) - now) / 1000);
  }

  async function write(keys: string[]) {
    const now = Date.now();
    const entries = await Promise.all(keys.map((key) => limiter.get(key)));
    const rows: [string, RateLimiterRes][] = [];
    keys.forEach((key, i) => {
      const entry = entries[i];
      if (entry && entry.msBeforeNext > 0) rows.push([key, entry]);
    });
    if (rows.length === 0) return;
    try {
      await sql`
        insert into ${table} (key, points, expire)
        select * from unnest(${rows.map(([key]) => key)}::varchar[], ${rows.map(([, res]) => res.consumedPoints)}::integer[],
          ${rows.map(([, res]) => now + res.msBeforeNext)}::bigint[])
        on conflict (key) do update set points = excluded.points, expire = excluded.expire`.execute(db);
    } catch (error) {
      // Written again with the next save.
      for (const [key] of rows) changed.add(key);
      throw error;
    }
  }

  const save = () => {
    if (changed.size === 0) return saving.catch(() => {});
    const keys = [...changed];
    changed.clear();
    // One write at a time, in order; a failed one does not stop the next.
    const next = saving.catch(() => {}).then(() => write(keys));
    saving = next;
    return next;
  };

  let loaded = false;
  const ready = load().then(() => {
    loaded = true;
  });
  // Whoever awaits it hears of a failure; nobody awaiting it must not end the process.
  ready.catch(() => {});
  const inner = countersOn(limiter, { clearExpired, close: async () => {} });
  const saveTimer = setInterval(() => void save().catch(() => {}), saveEveryMs);
  const clearTimer = setInterval(() => void clearExpired().catch(() => {}), clearExpiredEveryMs);
  saveTimer.unref();
  clearTimer.unref();

  // Not async: once loaded, a call costs what the memory store's does, and a set insertion per counter.
  const increment: Counters['increment'] = (key, seconds, amount) => {
    if (!loaded) return ready.then(() => increment(key, seconds, amount));
    changed.add(key);
    return inner.increment(key, seconds, amount);
  };
  const incrementWindows: Counters['incrementWindows'] = (minute, day, amount, perMinute) => {
    if (!loaded) return ready.then(() => incrementWindows(minute, day, amount, perMinute));
    changed.add(minute.key);
    changed.add(day.key);
    return inner.incrementWindows(minute, day, amount, perMinute);
  };
  const writeCounter: Counters['write'] = (key, value, seconds) => {
    if (!loaded) return ready.then(() => writeCounter(key, value, seconds));
    changed.add(key);
    return inner.write(key, value, seconds);
  };

  return {
    ready,
    save,
    increment,
    incrementWindows,
    read: (key) => (loaded ? inner.read(key) : ready.then(() => inner.read(key))),
    // Its row, if written, expires in the table; read back after a restart, it is the address's count as it was.
    forget: async (key) => {
      changed.delete(key);
      await limiter.delete(key);
    },
    write: writeCounter,
    clearExpired,
    async close() {
      clearInterval(saveTimer);
      clearInterval(clearTimer);
      await ready;
      await save();
    },
  };
}
