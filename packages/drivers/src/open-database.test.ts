import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest } from '@petstore/core';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});
const newFolder = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-open-'));
  folders.push(folder);
  return folder;
};

const tables = async (db: Awaited<ReturnType<typeof openDatabase>>['db']) =>
  (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(db)).rows.map(
    (row) => row.name,
  );

describe('a new embedded data folder', () => {
  it('starts from the build template: the schema is there before any migration runs', async () => {
    const folder = await newFolder();
    const database = await openDatabase({ dataDir: folder });
    try {
      expect(existsSync(join(folder, 'PG_VERSION'))).toBe(true);
      expect(await tables(database.db)).toEqual(expect.arrayContaining(['pets', 'api_keys', 'petstore_migration']));
      await migrateToLatest(database.db);
      await database.db.insertInto('pets').values({ name: 'First', category_id: 1, status: 'available' }).execute();
      expect(await database.db.selectFrom('pets').select('name').execute()).toEqual([{ name: 'First' }]);
    } finally {
      await database.close();
    }
  });

  it('is filled again when a first start was cut short before PG_VERSION was written', async () => {
    const folder = await newFolder();
    await mkdir(join(folder, 'base'), { recursive: true });
    await writeFile(join(folder, 'base', 'half-written'), 'x');
    const database = await openDatabase({ dataDir: folder });
    try {
      expect(await tables(database.db)).toContain('pets');
    } finally {
      await database.close();
    }
  });
});
