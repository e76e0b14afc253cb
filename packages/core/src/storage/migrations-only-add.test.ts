import { testDatabases, type OpenDatabase } from '@petstore/testing';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogOf, schemaChanges, widens } from '../testing/schema-changes.js';
import { COMPATIBILITY_FLOOR, CONTRACT_STEPS, MIGRATION_NAMES, migrations } from './migrations/index.js';

// DECISIONS, "Releases both ways": a release's migrations only add, so that the release before it runs on the schema
// they leave and a rollback is a rolling restart; a migration that takes something away is a contract step, which
// moves the compatibility floor. Checked on the catalogue each migration leaves, whatever SQL it is written in.

/** The release a floor names, as numbers to compare: `@petstore/server@0.3.0` → [0, 3, 0]. */
const versionOf = (release: string) => (/@(\d+)\.(\d+)\.(\d+)$/.exec(release) ?? []).slice(1).map(Number);
const later = (a: number[], b: number[]) => {
  const differs = a.findIndex((part, i) => part !== b[i]);
  return differs >= 0 && a[differs]! > b[differs]!;
};

/** Runs one migration's `up` in a transaction of its own, as the migrator does. */
const apply = (db: Kysely<any>, up: (db: Kysely<any>) => Promise<void>) => db.transaction().execute((trx) => up(trx));

describe.each(testDatabases)('the store’s migrations, on $name', ({ open }) => {
  let database: OpenDatabase;
  afterEach(() => database?.close());

  it('only add, one at a time, but for the contract steps, each of which takes something away', async () => {
    database = await open();
    // Run again, one by one, into a schema of their own, with the catalogue read before and after each.
    const schema = 'migrations_only_add';
    const steps = migrations(schema);
    const found: string[] = [];
    let before = await catalogOf(database.db, schema);
    for (const name of MIGRATION_NAMES) {
      await apply(database.db, (trx) => steps[name]!.up(trx));
      const after = await catalogOf(database.db, schema);
      const changes = schemaChanges(before, after);
      if (!CONTRACT_STEPS.has(name)) {
        found.push(
          ...changes.map(
            (change) =>
              `${name} ${change}. An earlier release still reads and writes it during a rolling upgrade and after a rollback: ` +
              'only add (a new table, a nullable or defaulted column, an index), or mark the migration as a contract step ' +
              "(contractStep('@petstore/server@NEXT', …) in migrations/index.ts), which moves the compatibility floor to NEXT.",
          ),
        );
      } else if (changes.length === 0) {
        found.push(`${name} is marked as a contract step but only adds: unmark it, so that the compatibility floor stays where it is.`);
      }
      before = after;
    }
    expect(found).toEqual([]);
    expect(before.tables.size).toBeGreaterThan(0);
  });
});

describe('the compatibility floor', () => {
  it('moves with every contract step, to a later release each time, and is the newest one', () => {
    let floor = versionOf('@petstore/server@0.2.0');
    for (const [name, release] of CONTRACT_STEPS) {
      expect(later(versionOf(release), floor), `${name} moves the floor to ${release}, which must be later than the floor before it`).toBe(true);
      floor = versionOf(release);
    }
    const newest = [...CONTRACT_STEPS].at(-1);
    expect(COMPATIBILITY_FLOOR).toEqual(newest ? { release: newest[1], migration: newest[0] } : { release: '@petstore/server@0.2.0', migration: MIGRATION_NAMES[0] });
  });
});

// The check itself, on scratch migrations: what each kind of change is found to be, by SQL and by kysely's builder.
const TABLE = `
  create table t (
    id bigint generated always as identity primary key,
    name text not null,
    code varchar(10),
    amount integer,
    price numeric(8,2),
    note text,
    tag text unique,
    created timestamptz not null default now()
  )`;

const TAKES_AWAY: [string, string | ((db: Kysely<any>) => Promise<unknown>), string][] = [
  ['drops a column', 'alter table t drop column note', 'drops or renames column t.note'],
  ['drops a column (kysely)', (db) => db.schema.alterTable('t').dropColumn('note').execute(), 'drops or renames column t.note'],
  ['renames a column', 'alter table t rename column note to remark', 'drops or renames column t.note'],
  ['drops a table', 'drop table t', 'drops or renames table t'],
  ['renames a table (kysely)', (db) => db.schema.alterTable('t').renameTo('u').execute(), 'drops or renames table t'],
  ['shortens a varchar', 'alter table t alter column code type varchar(5)', 'narrows column t.code from character varying(10) to character varying(5)'],
  ['makes an integer a smallint', 'alter table t alter column amount type smallint', 'narrows column t.amount from integer to smallint'],
  ['takes digits from a numeric', 'alter table t alter column price type numeric(6,2)', 'narrows column t.price from numeric(8,2) to numeric(6,2)'],
  ['makes text an integer', 'alter table t alter column note type integer using 0', 'narrows column t.note from text to integer'],
  ['makes a column NOT NULL', 'alter table t alter column note set not null', 'makes column t.note NOT NULL'],
  ['adds a NOT NULL column without a default', 'alter table t add column size integer not null', 'adds NOT NULL column t.size without a default'],
  [
    'adds a NOT NULL column without a default (kysely)',
    (db) => db.schema.alterTable('t').addColumn('size', 'integer', (col) => col.notNull()).execute(),
    'adds NOT NULL column t.size without a default',
  ],
  ['drops the default of a NOT NULL column', 'alter table t alter column created drop default', 'drops the default of NOT NULL column t.created'],
  ['adds a check on a column', 'alter table t add constraint t_amount_positive check (amount > 0)', 'adds a check constraint on t (CHECK ((amount > 0)))'],
  ['adds a unique index on a column', 'create unique index t_name_idx on t (name)', 'adds a unique index on t'],
  ['drops a unique constraint', 'alter table t drop constraint t_tag_key', 'drops a unique constraint t.t_tag_key'],
];

const ONLY_ADDS: [string, string | ((db: Kysely<any>) => Promise<unknown>)][] = [
  ['adds a nullable column', 'alter table t add column nickname text'],
  ['adds a NOT NULL column with a default, as pets.version', 'alter table t add column version bigint not null default 1'],
  ['adds a NOT NULL column with a default (kysely)', (db) => db.schema.alterTable('t').addColumn('version', 'bigint', (col) => col.notNull().defaultTo(1)).execute()],
  ['adds a table that refers to it', 'create table v (id bigint primary key, t_id bigint not null references t (id))'],
  ['adds an index', 'create index t_amount_idx on t (amount)'],
  ['adds a column with its own check and foreign key', "alter table t add column kind text not null default 'a' check (kind in ('a', 'b')), add column parent bigint references t (id)"],
  ['widens a varchar to text', 'alter table t alter column code type text'],
  ['widens a varchar', 'alter table t alter column code type varchar(20)'],
  ['widens an integer to a bigint', 'alter table t alter column amount type bigint'],
  ['widens a numeric', 'alter table t alter column price type numeric(12,4)'],
  ['lets a column be null', 'alter table t alter column name drop not null'],
  ['drops a check', 'alter table t add column n integer; alter table t add constraint t_n check (n > 0); alter table t drop constraint t_n'],
];

describe.each(testDatabases)('the check of a migration, on $name', ({ open }) => {
  let database: OpenDatabase;
  afterEach(() => database?.close());

  /** The changes a scratch migration makes to a table `t`, in a schema of its own. */
  async function changesOf(schema: string, change: string | ((db: Kysely<any>) => Promise<unknown>)) {
    const db = database.db;
    await sql`create schema ${sql.id(schema)}`.execute(db);
    await apply(db, async (trx) => {
      await sql`set local search_path to ${sql.id(schema)}`.execute(trx);
      await sql.raw(TABLE).execute(trx);
    });
    const before = await catalogOf(db, schema);
    await apply(db, async (trx) => {
      if (typeof change === 'string') {
        await sql`set local search_path to ${sql.id(schema)}`.execute(trx);
        for (const statement of change.split('; ')) await sql.raw(statement).execute(trx);
      } else await change(trx.withSchema(schema));
    });
    return schemaChanges(before, await catalogOf(db, schema));
  }

  it('finds what a migration takes away from an earlier release, however it is written', async () => {
    database = await open();
    const found: Record<string, string[]> = {};
    for (const [i, [what, change]] of TAKES_AWAY.entries()) found[what] = await changesOf(`takes_away_${i}`, change);
    expect(found).toEqual(Object.fromEntries(TAKES_AWAY.map(([what, , expected]) => [what, [expect.stringContaining(expected)]])));
  });

  it('finds nothing in a migration that only adds or widens', async () => {
    database = await open();
    const found: Record<string, string[]> = {};
    for (const [i, [what, change]] of ONLY_ADDS.entries()) found[what] = await changesOf(`only_adds_${i}`, change);
    expect(found).toEqual(Object.fromEntries(ONLY_ADDS.map(([what]) => [what, []])));
  });
});

describe('widening a type', () => {
  it('is a wider kind, the same kind unsized, or more room; never less', () => {
    expect(widens('character varying(10)', 'text')).toBe(true);
    expect(widens('character varying(10)', 'character varying')).toBe(true);
    expect(widens('numeric(8,2)', 'numeric(10,2)')).toBe(true);
    expect(widens('numeric(8,2)', 'numeric(8,3)')).toBe(false);
    expect(widens('timestamp(3) with time zone', 'timestamp with time zone')).toBe(true);
    expect(widens('timestamp(3) with time zone', 'timestamp(3) without time zone')).toBe(false);
    expect(widens('bigint', 'integer')).toBe(false);
    expect(widens('text', 'character varying(255)')).toBe(false);
  });
});
