import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { createBatchedCounts } from './batched-counts.js';

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
 * The deprecated-operation inventory: which keys still call deprecated operations, how often and when last. Calls are
 * counted in memory and added to the `deprecated_calls` table in batches (every `flushEveryMs`, 5 s by default; see
 * batched-counts.ts), so recording costs no database write per request.
 * @example const ledger = createDeprecatedUsageLedger({ db, clock }); ledger.record(7, 'getPet')
 */
export function createDeprecatedUsageLedger(options: {
  db: Kysely<Database>;
  clock: Clock;
  flushEveryMs?: number;
}): DeprecatedUsageLedger {
  const { db, clock, flushEveryMs = 5_000 } = options;

  /** Adds a batch to the table, one upsert per key and operation; answers the entries it could not write. */
  async function write(batch: Pending[]): Promise<readonly Pending[]> {
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
        // The database is away: what is unwritten waits for the next flush rather than being lost.
        return batch.slice(index);
      }
    }
    return [];
  }

  const counts = createBatchedCounts<Pending>({
    flushEveryMs,
    idOf: (entry) => `${entry.keyId}:${entry.operationId}`,
    merge(into, from) {
      into.calls += from.calls;
      into.last = Math.max(into.last, from.last);
    },
    write,
  });
  const { flush } = counts;

  return {
    record(keyId, operationId) {
      counts.add({ keyId, operationId, calls: 1, last: clock.now() });
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
    close: counts.close,
  };
}
