import { sql, type Kysely } from 'kysely';

/** A column as the catalogue describes it. */
interface Column {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** A constraint or unique index: what it enforces, and on which columns. */
interface Rule {
  table: string;
  kind: string;
  definition: string;
  columns: string[];
}

/** The part of a schema's catalogue that the releases running on it read and write. */
export interface Catalog {
  /** By table, by column. */
  tables: Map<string, Map<string, Column>>;
  /** Constraints and unique indexes, by name. */
  rules: Map<string, Rule>;
}

/** The tables that say where the database stands, which only the migrations and release records change. */
const BOOKKEEPING = /^(petstore_migration|petstore_migration_lock|petstore_release|kysely_migration|kysely_migration_lock)$/;

/**
 * Reads what `schema` holds from the catalogue (information_schema and pg_catalog), whatever SQL made it: tables,
 * columns with their types, nullability and defaults, and the constraints and unique indexes that refuse writes.
 * @example const before = await catalogOf(db, 'petstore')
 */
export async function catalogOf(db: Kysely<any>, schema: string): Promise<Catalog> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string; type: string; nullable: boolean; has_default: boolean }>`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type,
      not a.attnotnull as nullable, (a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') as has_default
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped`.execute(db);
  const tables = new Map<string, Map<string, Column>>();
  for (const row of columns) {
    if (BOOKKEEPING.test(row.table_name)) continue;
    if (!tables.has(row.table_name)) tables.set(row.table_name, new Map());
    tables.get(row.table_name)!.set(row.column_name, { type: row.type, nullable: row.nullable, hasDefault: row.has_default });
  }
  const { rows: rules } = await sql<{ name: string; table_name: string; kind: string; definition: string; columns: string[] | null }>`
    select con.conname as name, c.relname as table_name, con.contype::text as kind, pg_get_constraintdef(con.oid) as definition,
      array(select a.attname::text from pg_catalog.pg_attribute a where a.attrelid = c.oid and a.attnum = any(con.conkey)) as columns
    from pg_catalog.pg_constraint con
    join pg_catalog.pg_class c on c.oid = con.conrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and con.contype in ('c', 'u', 'p', 'f', 'x')
    union all
    select i.relname, c.relname, 'unique index', pg_get_indexdef(i.oid),
      array(select a.attname::text from pg_catalog.pg_attribute a where a.attrelid = c.oid and a.attnum = any(ix.indkey::int2[]))
    from pg_catalog.pg_index ix
    join pg_catalog.pg_class i on i.oid = ix.indexrelid
    join pg_catalog.pg_class c on c.oid = ix.indrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and ix.indisunique
      and not exists (select 1 from pg_catalog.pg_constraint con where con.conindid = i.oid)`.execute(db);
  const byName = new Map<string, Rule>();
  for (const row of rules) {
    if (BOOKKEEPING.test(row.table_name)) continue;
    byName.set(`${row.table_name}.${row.name}`, { table: row.table_name, kind: row.kind, definition: row.definition, columns: row.columns ?? [] });
  }
  return { tables, rules: byName };
}

/** Types a value of the first always fits in (a release that writes the first still writes the second). */
const WIDER: Record<string, readonly string[]> = {
  smallint: ['integer', 'bigint', 'numeric', 'real', 'double precision'],
  integer: ['bigint', 'numeric', 'double precision'],
  bigint: ['numeric'],
  real: ['double precision'],
  'character varying': ['text'],
  text: ['character varying'],
  json: ['jsonb'],
};

/** `character varying(10)`, `numeric(10,2)`, `timestamp(3) with time zone`: the kind, its sizes, and the kind unsized. */
const SIZED = /^([a-z ]+)\((\d+)(?:,(\d+))?\)(.*)$/;

/**
 * Whether every value of type `from` (as `format_type` writes it) is a value of type `to`: the same type, a wider one,
 * the same kind unsized, or the same kind with more room.
 * @example widens('character varying(10)', 'text') // true
 */
export function widens(from: string, to: string): boolean {
  if (from === to || WIDER[from]?.includes(to)) return true;
  const a = SIZED.exec(from);
  if (!a) return false;
  const [, kind, size, scale = '0', rest] = a as unknown as [string, string, string, string | undefined, string];
  if (to === `${kind}${rest}` || ((kind === 'character varying' || kind === 'character') && to === 'text')) return true;
  const b = SIZED.exec(to);
  if (!b || b[1] !== kind || b[4] !== rest) return false;
  const [sizeTo, scaleTo] = [Number(b[2]), Number(b[3] ?? '0')];
  if (kind !== 'numeric') return sizeTo >= Number(size);
  return scaleTo >= Number(scale) && sizeTo - scaleTo >= Number(size) - Number(scale);
}

/**
 * What a change of the schema from `before` to `after` takes away from a release written for `before`: dropped or
 * renamed tables and columns, narrowed types, columns made NOT NULL or left without the default an earlier release
 * relies on, NOT NULL columns added without a default, and constraints or unique indexes that now refuse its writes
 * (added or changed on its columns) or no longer back its `on conflict` (dropped unique ones). Empty when the change
 * only adds. Each entry is a sentence naming the table and column.
 * @example expect(schemaChanges(before, after)).toEqual([])
 */
export function schemaChanges(before: Catalog, after: Catalog): string[] {
  const found: string[] = [];
  for (const [table, columns] of before.tables) {
    const now = after.tables.get(table);
    if (!now) {
      found.push(`drops or renames table ${table}`);
      continue;
    }
    for (const [name, column] of columns) {
      const next = now.get(name);
      if (!next) found.push(`drops or renames column ${table}.${name}`);
      else {
        if (!widens(column.type, next.type)) found.push(`narrows column ${table}.${name} from ${column.type} to ${next.type}`);
        if (column.nullable && !next.nullable) found.push(`makes column ${table}.${name} NOT NULL`);
        if (!next.nullable && column.hasDefault && !next.hasDefault) found.push(`drops the default of NOT NULL column ${table}.${name}`);
      }
    }
    for (const [name, column] of now) {
      if (!columns.has(name) && !column.nullable && !column.hasDefault) found.push(`adds NOT NULL column ${table}.${name} without a default`);
    }
  }
  for (const [name, rule] of after.rules) {
    const was = before.rules.get(name);
    const older = before.tables.get(rule.table);
    // A rule on a new table, or on columns this change added, refuses nothing an earlier release writes.
    if (!older || !rule.columns.some((column) => older.has(column))) continue;
    if (!was) found.push(`adds ${describe(rule)} on ${rule.table} (${rule.definition})`);
    else if (was.definition !== rule.definition) found.push(`changes ${describe(rule)} ${name} from (${was.definition}) to (${rule.definition})`);
  }
  for (const [name, rule] of before.rules) {
    if (!after.rules.has(name) && after.tables.has(rule.table) && ['u', 'p', 'unique index'].includes(rule.kind)) {
      found.push(`drops ${describe(rule)} ${name}, which an earlier release's writes may rely on (on conflict)`);
    }
  }
  return found;
}

const KINDS: Record<string, string> = { c: 'a check constraint', u: 'a unique constraint', p: 'a primary key', f: 'a foreign key', x: 'an exclusion constraint' };
const describe = (rule: Rule) => KINDS[rule.kind] ?? `a ${rule.kind}`;
