import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Where the store's tables live. `schema` names a PostgreSQL schema, made if missing, so the store sits beside a
 * host's own tables of the same names; unset, names stay unqualified and land in the connection's current schema
 * (`public` unless the host's `search_path` says otherwise), as they always have.
 * @example const where: StoreSchema = { schema: 'petstore' }
 */
export interface StoreSchema {
  schema?: string | undefined;
}

/** The schema, checked: a name PostgreSQL accepts (1 to 63 bytes), or undefined for the current schema. */
export function schemaName(schema: string | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const bytes = new TextEncoder().encode(schema).length;
  if (bytes < 1 || bytes > 63 || schema.includes('\0')) {
    throw new RangeError(`schema must be a PostgreSQL name of 1 to 63 bytes, not ${JSON.stringify(schema)}.`);
  }
  return schema;
}

/**
 * The store's own view of a host's Kysely: the host's plugins left out (a `CamelCasePlugin` would rename our
 * columns), every table of a query built with kysely's builder qualified by the schema (kysely's `withSchema`).
 * Raw statements name their tables with {@link tableIn}.
 */
export function storeDatabase<DB>(db: Kysely<DB>, schema: string | undefined): Kysely<DB> {
  const own = db.withoutPlugins();
  return schema === undefined ? own : own.withSchema(schema);
}

/** A table of the store in a raw `sql` statement: `"schema"."table"`, or `"table"` without a schema. */
export function tableIn(schema: string | undefined, table: string): RawBuilder<unknown> {
  return schema === undefined ? sql.table(table) : sql.id(schema, table);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A table of the store in SQL text sent to a pool: `"schema"."table"`, or `table` without a schema. */
export function tableText(schema: string | undefined, table: string): string {
  return schema === undefined ? table : `${quoted(schema)}.${quoted(table)}`;
}

/**
 * The schema a fresh session's unqualified names land in (`public` unless the role's or database's `search_path` says
 * otherwise), whatever the session at hand was left with: a pooled server connection keeps what a tool set on it
 * (pg_dump and pg_restore clear `search_path`), so it is read in a transaction of its own that puts the path back to
 * its default for that transaction only. `public` when the default names no schema that exists. The store resolves it
 * once, at opening, and then names it in every statement.
 * @example const schema = await defaultSchema(db) // 'public'
 */
export async function defaultSchema(db: Kysely<any>): Promise<string> {
  const found = await db.transaction().execute(async (trx) => {
    await sql`set local search_path to default`.execute(trx);
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(trx);
    return rows[0]?.schema ?? undefined;
  });
  return found ?? 'public';
}

/** Whether a schema of this name exists. */
export async function schemaExists(db: Kysely<any>, schema: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`
    select count(*)::int as found from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
  return rows[0]!.found > 0;
}

/**
 * Whether `table` exists in `schema` (the current one when undefined). Read from the catalogue's tables, not by
 * `to_regclass`: a name looked up and not found stays "not found" in the session's cache until its next transaction,
 * even once a lock is held and another instance has made the table.
 */
export async function tableExists(db: Kysely<any>, schema: string | undefined, table: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`
    select count(*)::int as found from pg_catalog.pg_tables
    where schemaname = coalesce(${schema ?? null}::text, current_schema()) and tablename = ${table}`.execute(db);
  return rows[0]!.found > 0;
}

/** Whether `table` in `schema` (the current one when undefined) has a column named `column`. */
export async function columnExists(db: Kysely<any>, schema: string | undefined, table: string, column: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`
    select count(*)::int as found from information_schema.columns
    where table_schema = coalesce(${schema ?? null}::text, current_schema()) and table_name = ${table} and column_name = ${column}`.execute(db);
  return rows[0]!.found > 0;
}
