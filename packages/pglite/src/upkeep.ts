import type { Database } from '@petstore/core';
import { type Kysely, sql } from 'kysely';

/** How often the embedded database's tables are looked at for upkeep (ms). */
export const UPKEEP_EVERY_MS = 10_000;

/**
 * The upkeep PostgreSQL's autovacuum does, which PGlite (one process, no background workers) never runs: a table
 * that has grown by a fifth (and 8 pages) since its last VACUUM or ANALYZE is vacuumed and analysed again. Without
 * it the planner keeps the statistics of an empty table (a claim of due webhook deliveries sorted every pending one,
 * 7-16 ms with 10,000 waiting, instead of reading the first few from its index) and the space of updated and deleted
 * rows is never reused. Growth is read from the files' sizes (`pg_relation_size` against `pg_class.relpages`), not
 * from the statistics collector, which PGlite rarely flushes. The work follows the changes: a table that has not
 * grown is not touched. Each run takes the database's one connection like any statement, between them.
 * @example const upkeep = startUpkeep(db); … await upkeep.stop()
 */
export function startUpkeep(db: Kysely<Database>, everyMs = UPKEEP_EVERY_MS) {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    // A run that fails (the database closing under it) is tried again at the next look.
    running = upkeep(db)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return {
    /** Stops looking, and waits for a run under way. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** One look: VACUUM (ANALYZE) for each table of the current database that grew enough since it was last done. */
export async function upkeep(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select format('%I.%I', n.nspname, c.relname) as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
      and pg_relation_size(c.oid) / current_setting('block_size')::int > greatest(c.relpages, 0) * 1.2 + 8`.execute(db);
  for (const { name } of rows) await sql`vacuum (analyze) ${sql.raw(name)}`.execute(db);
  return rows.map((row) => row.name);
}
