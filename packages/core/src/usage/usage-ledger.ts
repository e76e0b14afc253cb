import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { operations } from '../operations/operations.js';
import type { Database } from '../storage/database.js';
import { storeDatabase, type StoreSchema } from '../storage/schema.js';
import { DAY_MS } from '../quota/windows.js';
import { createBatchedCounts } from './batched-counts.js';

/** How a request counted in the ledger ended. */
export type UsageOutcome = 'served' | 'rateLimited' | 'banned' | 'clientErrors' | 'serverErrors';

/** The counts of one subject, day, plan and operation (or of a sum of them). */
export type UsageCounts = Record<UsageOutcome, number>;

/** Who a ledger row belongs to: an API key by its id, or a host's principal by its id. */
export type UsageSubject = { readonly keyId: number } | { readonly principalId: string };

/** One row of the ledger: a subject's requests of one operation on one UTC day. */
export interface UsageRow extends UsageCounts {
  /**
   * Calls answered with success that count against no window of the plan: those of an operation with a limit of its
   * own (`getUsage`), which are never billed. Their `served` is 0.
   */
  unmetered: number;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The API key's id, for a key's row. */
  keyId?: number;
  /** The principal's id, for a host principal's row. */
  principalId?: string;
  plan: string;
  /** The operation called, or `unmatched` for a request that named none. */
  operationId: string;
}

/** Which rows {@link UsageLedger.query} answers; every field narrows, none means all. */
export interface UsageQuery {
  /** First UTC day, `YYYY-MM-DD`, inclusive. */
  from?: string | undefined;
  /** Last UTC day, `YYYY-MM-DD`, inclusive. */
  to?: string | undefined;
  keyId?: number | undefined;
  principalId?: string | undefined;
  plan?: string | undefined;
}

/** Counts requests per subject, UTC day, plan and operation in memory, and adds them to the database in batches. */
export interface UsageLedger {
  /** Notes one request; never touches the database. */
  record(subject: UsageSubject, plan: string, operationId: string, outcome: UsageOutcome, requests?: number): void;
  /** Adds what was noted since the last flush to the `usage_days` table, in one statement per 500 rows. */
  flush(): Promise<void>;
  /** The rows asked for, this instance's pending counts written first, by day, subject, plan and operation. */
  query(filter?: UsageQuery): Promise<UsageRow[]>;
  /** Deletes the days older than the retention; answers how many rows went. */
  prune(): Promise<number>;
  /** Stops the timer after a last flush. */
  close(): Promise<void>;
}

/** What {@link createUsageLedger} is built from. */
export interface UsageLedgerOptions {
  db: Kysely<Database>;
  clock: Clock;
  /** How often counts noted in memory are written: the ledger's delay behind the requests. Default 5000 ms. */
  flushEveryMs?: number;
  /** Days kept, today included; older days are deleted (at start and once a day after). Default 400. */
  retentionDays?: number;
}

const OUTCOMES: readonly UsageOutcome[] = ['served', 'rateLimited', 'banned', 'clientErrors', 'serverErrors'];
const COLUMN = {
  served: 'served',
  rateLimited: 'rate_limited',
  banned: 'banned',
  clientErrors: 'client_errors',
  serverErrors: 'server_errors',
} as const satisfies Record<UsageOutcome, string>;
const ROWS_PER_STATEMENT = 500;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

interface Pending extends UsageCounts {
  day: string;
  subject: string;
  plan: string;
  operationId: string;
}

/**
 * The operations whose successes are `unmetered`: those with a limit of their own, counted against no window of the
 * plan (`getUsage`). The ledger keeps their successes in its `served` column (their rows hold nothing else served) and
 * reads them as `unmetered`, so the rule lives here alone and no migration was needed.
 */
const UNMETERED: ReadonlySet<string> = new Set(
  Object.values(operations)
    .filter((op) => (op as { ownLimitPerMinute?: number }).ownLimitPerMinute !== undefined)
    .map((op) => op.operationId),
);

/** The UTC day of `ms`, `YYYY-MM-DD`. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The name of a ledger row in memory: its day, subject, plan and operation. */
const rowName = (day: string, subject: string, plan: string, operationId: string) =>
  `${day}\u0000${subject}\u0000${plan}\u0000${operationId}`;

const subjectText = (subject: UsageSubject) => ('keyId' in subject ? `k:${subject.keyId}` : `p:${subject.principalId}`);

function checkedDay(name: string, day: string | undefined) {
  if (day !== undefined && (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))) {
    throw new RangeError(`${name} must be a UTC day written YYYY-MM-DD, not ${JSON.stringify(day)}.`);
  }
  return day;
}

/**
 * The usage ledger (DECISIONS "Usage"). Requests add to counters in memory; a timer (every `flushEveryMs`) adds them
 * to `usage_days` with one upsert per 500 rows, so counting costs no database write per request and every instance
 * on one database adds to the same rows. What could not be written (the database away) is kept for the next flush.
 * @example const ledger = createUsageLedger({ db, clock }); ledger.record({ keyId: 7 }, 'free', 'listPets', 'served')
 */
export function createUsageLedger(options: UsageLedgerOptions): UsageLedger {
  const { db, clock, flushEveryMs = 5_000, retentionDays = 400 } = options;
  if (!Number.isSafeInteger(retentionDays) || retentionDays < 1) {
    throw new RangeError(`retentionDays must be a whole number of days, at least 1, not ${retentionDays}.`);
  }
  // The UTC day of the last prune: the ledger prunes on its first flush and on the first flush of each new day.
  let prunedOn: string | undefined;

  /** Adds a batch to `usage_days`, one upsert per 500 rows; answers the rows it could not write. */
  async function write(batch: Pending[]): Promise<readonly Pending[]> {
    for (let start = 0; start < batch.length; start += ROWS_PER_STATEMENT) {
      const rows = batch.slice(start, start + ROWS_PER_STATEMENT);
      try {
        await db
          .insertInto('usage_days')
          .values(
            rows.map((row) => ({
              day: row.day,
              subject: row.subject,
              plan: row.plan,
              operation_id: row.operationId,
              served: row.served,
              rate_limited: row.rateLimited,
              banned: row.banned,
              client_errors: row.clientErrors,
              server_errors: row.serverErrors,
            })),
          )
          .onConflict((oc) =>
            oc.columns(['day', 'subject', 'plan', 'operation_id']).doUpdateSet({
              served: sql`usage_days.served + excluded.served`,
              rate_limited: sql`usage_days.rate_limited + excluded.rate_limited`,
              banned: sql`usage_days.banned + excluded.banned`,
              client_errors: sql`usage_days.client_errors + excluded.client_errors`,
              server_errors: sql`usage_days.server_errors + excluded.server_errors`,
            }),
          )
          .execute();
      } catch {
        // The database is away: what is unwritten waits for the next flush rather than being lost.
        return batch.slice(start);
      }
    }
    const today = utcDay(clock.now());
    if (prunedOn !== today) await prune().then(() => (prunedOn = today), () => undefined);
    return [];
  }

  const counts = createBatchedCounts<Pending>({
    flushEveryMs,
    idOf: (entry) => rowName(entry.day, entry.subject, entry.plan, entry.operationId),
    merge(into, from) {
      for (const outcome of OUTCOMES) into[outcome] += from[outcome];
    },
    write,
  });
  const flush = counts.flush;

  // The UTC day of the requests being counted, found again only when the clock leaves it.
  let dayStart = Number.NaN;
  let day = '';
  // Today's pending rows by key id (a number) or principal id (a string), then operation: a request finds its row
  // without building the row's name. Emptied at each flush (`counts.generation`), when the rows stop being pending.
  let rowsToday = new Map<number | string, Map<string, Pending>>();
  let indexed = counts.generation;

  async function prune(): Promise<number> {
    const oldest = utcDay(clock.now() - (retentionDays - 1) * DAY_MS);
    const result = await db.deleteFrom('usage_days').where('day', '<', oldest).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return {
    record(subject, plan, operationId, outcome, requests = 1) {
      const now = clock.now();
      if (!(now >= dayStart && now < dayStart + DAY_MS)) {
        dayStart = now - (((now % DAY_MS) + DAY_MS) % DAY_MS);
        day = utcDay(dayStart);
        rowsToday = new Map();
      }
      if (indexed !== counts.generation) {
        rowsToday = new Map();
        indexed = counts.generation;
      }
      const id = 'keyId' in subject ? subject.keyId : subject.principalId;
      let ofSubject = rowsToday.get(id);
      if (!ofSubject) rowsToday.set(id, (ofSubject = new Map()));
      let entry = ofSubject.get(operationId);
      if (!entry || entry.plan !== plan) {
        const who = subjectText(subject);
        entry = counts.entry(rowName(day, who, plan, operationId), () => ({
          day,
          subject: who,
          plan,
          operationId,
          served: 0,
          rateLimited: 0,
          banned: 0,
          clientErrors: 0,
          serverErrors: 0,
        }));
        ofSubject.set(operationId, entry);
      }
      entry[outcome] += requests;
    },
    flush,
    async query(filter = {}) {
      checkedDay('from', filter.from);
      checkedDay('to', filter.to);
      await flush();
      return rowsOf(db, filter);
    },
    prune,
    close: counts.close,
  };
}

/** The rows asked for, as they are in `usage_days` now, on a database already scoped to the store's schema. */
async function rowsOf(db: Kysely<Database>, filter: UsageQuery): Promise<UsageRow[]> {
  const from = checkedDay('from', filter.from);
  const to = checkedDay('to', filter.to);
  let query = db
    .selectFrom('usage_days')
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'subject', 'plan', 'operation_id', ...Object.values(COLUMN)])
    .orderBy('day')
    .orderBy('subject')
    .orderBy('plan')
    .orderBy('operation_id');
  if (from !== undefined) query = query.where('day', '>=', from);
  if (to !== undefined) query = query.where('day', '<=', to);
  if (filter.keyId !== undefined) query = query.where('subject', '=', `k:${filter.keyId}`);
  if (filter.principalId !== undefined) query = query.where('subject', '=', `p:${filter.principalId}`);
  if (filter.plan !== undefined) query = query.where('plan', '=', filter.plan);
  const rows = await query.execute();
  return rows.map((row) => {
    const who = row.subject.startsWith('k:') ? { keyId: Number(row.subject.slice(2)) } : { principalId: row.subject.slice(2) };
    const served = Number(row.served);
    const unmetered = UNMETERED.has(row.operation_id);
    return {
      day: row.day,
      ...who,
      plan: row.plan,
      operationId: row.operation_id,
      served: unmetered ? 0 : served,
      unmetered: unmetered ? served : 0,
      rateLimited: Number(row.rate_limited),
      banned: Number(row.banned),
      clientErrors: Number(row.client_errors),
      serverErrors: Number(row.server_errors),
    };
  });
}

/**
 * The ledger's rows as written so far, read from a database by a process that serves no requests (the key tools):
 * what {@link UsageLedger.query} answers, less the counts an instance still holds in memory (at most its flush
 * interval's). `schema` is the store's (openPetStore's); unset, the connection's current one.
 * @example const rows = await readUsage(db, { from: '2026-11-01', to: '2026-11-30' }, { schema: 'petstore' })
 */
export function readUsage(db: Kysely<any>, filter: UsageQuery = {}, where: StoreSchema = {}): Promise<UsageRow[]> {
  return rowsOf(storeDatabase(db as Kysely<Database>, where.schema), filter);
}
