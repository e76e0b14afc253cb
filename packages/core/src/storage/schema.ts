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
