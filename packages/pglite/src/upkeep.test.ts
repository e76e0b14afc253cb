import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from './open-embedded.js';
import { upkeep } from './upkeep.js';

const opened: EmbeddedDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
});
async function open(upkeepEveryMs?: number) {
  const database = await openEmbeddedDatabase('memory://', upkeepEveryMs === undefined ? {} : { upkeepEveryMs });
  opened.push(database);
  return database;
}

/** What the planner believes of a table: its rows and pages as of its last VACUUM or ANALYZE (-1: never). */
async function believed(database: EmbeddedDatabase, table: string) {
  const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where relname = ${table}`.execute(database.db);
  return Number(rows[0]!.reltuples);
}

describe('upkeep of the embedded database', () => {
  it('vacuums and analyses the tables that grew, and leaves the others alone', async () => {
    const database = await open(3_600_000);
    await sql`create table grown (id int primary key, note text)`.execute(database.db);
    await sql`create table small (id int primary key)`.execute(database.db);
    await sql`insert into small values (1)`.execute(database.db);
    await sql`insert into grown select g, repeat('x', 100) from generate_series(1, 5000) g`.execute(database.db);

    const first = await upkeep(database.db);
    expect(first).toContain('public.grown');
    expect(first).not.toContain('public.small');
    expect(await believed(database, 'grown')).toBe(5000);
    // Nothing grew since: nothing to do.
    expect(await upkeep(database.db)).not.toContain('public.grown');
    // Updated rows make new versions (the table grows); once vacuumed, the space of the old ones is used again.
    await sql`update grown set note = repeat('y', 100)`.execute(database.db);
    expect(await upkeep(database.db)).toContain('public.grown');
    const size = async () => Number((await sql<{ size: string }>`select pg_relation_size('grown') as size`.execute(database.db)).rows[0]!.size);
    const before = await size();
    await sql`update grown set note = repeat('z', 100)`.execute(database.db);
    expect(await size()).toBe(before);
  });

  it('runs by itself every upkeepEveryMs, so the planner reads a filled table by its index', async () => {
    const database = await open(50);
    await sql`create table queue (id int primary key, due int not null)`.execute(database.db);
    await sql`create index queue_due_idx on queue (due, id)`.execute(database.db);
    await sql`insert into queue select g, g % 100 from generate_series(1, 20000) g`.execute(database.db);
    const plan = async () =>
      (await sql<{ 'QUERY PLAN': string }>`explain select id from queue where due <= 50 order by due, id limit 16`.execute(database.db)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const end = Date.now() + 5_000;
    while ((await believed(database, 'queue')) !== 20000) {
      if (Date.now() > end) throw new Error('the table was never analysed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await plan()).toMatch(/Index (Only )?Scan using queue_due_idx/);
    expect(await plan()).not.toMatch(/Sort/);
  });
});
