import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';

/** One key's calls of one deprecated operation. */
export interface DeprecatedUsage {
  keyId: number;
  label: string | null;
  operationId: string;
  calls: number;
  lastCalledAt: Date;
}

/** Counts calls of deprecated operations per key in memory and adds them to the database in batches. */
export interface DeprecatedUsageLedger {
  /** Notes one call; never touches the database. */
  record(keyId: number, operationId: string): void;
  /** Writes what was noted since the last flush, one upsert per key and operation. */
  flush(): Promise<void>;
  /** Every key's calls of deprecated operations, this instance's pending ones included, by key then operation. */
  list(): Promise<DeprecatedUsage[]>;
  /** Stops the flush timer after a last flush. */
  close(): Promise<void>;
}

interface Pending {
  keyId: number;
  operationId: string;
  calls: number;
  last: number;
}

/**
 * The deprecated-operation inventory: which keys still call deprecated operations, how often and when last. Requests
 * add to a counter in memory; a timer (every `flushEveryMs`, 5 s by default) adds the counts to the
 * `deprecated_calls` table, so recording costs no database write per request.
 * @example const ledger = createDeprecatedUsageLedger({ db, clock }); ledger.record(7, 'getPet')
 */
export function createDeprecatedUsageLedger(options: {
  db: Kysely<Database>;
  clock: Clock;
  flushEveryMs?: number;
}): DeprecatedUsageLedger {
  const { db, clock, flushEveryMs = 5_000 } = options;
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | undefined;

  /** Adds a batch to the table; whatever could not be written goes back to the pending counts, nothing twice. */
  async function write(batch: Pending[]) {
    for (const [index, entry] of batch.entries()) {
      try {
        await db
          .insertInto('deprecated_calls')
          .values({
            api_key_id: entry.keyId,
            operation_id: entry.operationId,
            calls: entry.calls,
            last_called_at: new Date(entry.last),
          })
          .onConflict((oc) =>
            oc.columns(['api_key_id', 'operation_id']).doUpdateSet({
              calls: sql`deprecated_calls.calls + excluded.calls`,
              last_called_at: sql`greatest(deprecated_calls.last_called_at, excluded.last_called_at)`,
            }),
          )
          .execute();
      } catch {
        // The database is away: keep what is unwritten for the next flush rather than lose it.
        for (const unwritten of batch.slice(index)) add(unwritten);
        return;
      }
    }
  }

  function add(entry: Pending) {
    const key = `${entry.keyId}:${entry.operationId}`;
    const known = pending.get(key);
    if (!known) pending.set(key, { ...entry });
    else {
      known.calls += entry.calls;
      known.last = Math.max(known.last, entry.last);
    }
  }

  function flush(): Promise<void> {
    if (pending.size === 0) return flushing;
    const batch = [...pending.values()];
    pending = new Map();
    flushing = flushing.then(() => write(batch));
    return flushing;
  }

  return {
    record(keyId, operationId) {
      add({ keyId, operationId, calls: 1, last: clock.now() });
      if (timer === undefined) {
        timer = setInterval(() => void flush(), flushEveryMs);
        timer.unref();
      }
    },
    flush,
    async list() {
      await flush();
      const rows = await db
        .selectFrom('deprecated_calls')
        .innerJoin('api_keys', 'api_keys.id', 'deprecated_calls.api_key_id')
        .select(['deprecated_calls.api_key_id', 'api_keys.label', 'deprecated_calls.operation_id', 'deprecated_calls.calls', 'deprecated_calls.last_called_at'])
        .orderBy('deprecated_calls.api_key_id')
        .orderBy('deprecated_calls.operation_id')
        .execute();
      return rows.map((row) => ({
        keyId: Number(row.api_key_id),
        label: row.label,
        operationId: row.operation_id,
        calls: Number(row.calls),
        lastCalledAt: row.last_called_at,
      }));
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
