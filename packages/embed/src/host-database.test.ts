import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore, operations, type Database, type OperationId } from '@petstore/core';
import { databaseUrl, refusal, scratchPostgres } from '@petstore/testing';
import { CamelCasePlugin, Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler, openPetStore, petStoreMigrations, StoreClosedError, type OpenPetStore } from './index.js';

const KEY = 'host-database-key-0123456789';
const apiKeys = [{ key: KEY, plan: 'pro' as const }];

/** The host's own migrations, run by its own kysely Migrator in kysely's default tables. */
const hostMigrations: Record<string, Migration> = {
  '2024-01-01-users': {
    async up(db) {
      await sql`create table users (id serial primary key, email text not null unique)`.execute(db);
    },
  },
};
const hostProvider: MigrationProvider = { getMigrations: async () => hostMigrations };

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.skipIf(!databaseUrl)("the store on a host's own PostgreSQL database", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A scratch database with the host's pool and Kysely on it, as a host has them. */
  async function host() {
    const scratch = await scratchPostgres();
    const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
    pool.on('error', () => {}); // the host's own listener, as every pg host attaches
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    cleanups.push(async () => {
      if (!pool.ended) await db.destroy();
      await scratch.drop();
    });
    return { ...scratch, pool, db };
  }

  const tablesIn = async (pool: pg.Pool, schema: string) =>
    (await pool.query<{ name: string }>('select tablename as name from pg_tables where schemaname = $1 order by 1', [schema])).rows.map((r) => r.name);
  const kyselyMigrations = async (pool: pg.Pool) =>
    (await pool.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name);

  async function opened(options: Parameters<typeof openPetStore>[0]) {
    const service = await openPetStore({ apiKeys, ...options });
    cleanups.push(() => service.close());
    return service;
  }

  async function inProcessAndRest(service: OpenPetStore) {
    const { data: pet } = await service.store.createPet({ name: 'Hosted', categoryId: 3 }, { apiKey: KEY });
    expect((await service.store.getPet({ petId: pet.id }, { apiKey: KEY })).data).toEqual(pet);
    const server = createServer(createHttpHandler(service.store));
    try {
      const url = await listen(server);
      const auth = { authorization: `Bearer ${KEY}` };
      const created = await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Over REST', categoryId: 4 }),
      });
      expect(created.status).toBe(201);
      const listed = await fetch(`${url}/v1/pets?limit=10`, { headers: auth });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('x-ratelimit-limit')).toBe('300');
      expect(((await listed.json()) as { name: string }[]).map((p) => p.name)).toEqual(['Hosted', 'Over REST']);
    } finally {
      server.close();
    }
  }

  it('opens beside a host that runs kysely migrations in the default tables, whose migrations stay untouched', async () => {
    const { pool, db } = await host();
    expect((await new Migrator({ db, provider: hostProvider }).migrateToLatest()).error).toBeUndefined();
    const service = await opened({ pool });
    await inProcessAndRest(service);
    expect(await kyselyMigrations(pool)).toEqual(['2024-01-01-users']);
    // The host's migrator runs again as it does on every deploy: nothing of ours in its records, so nothing "missing".
    const again = await new Migrator({ db, provider: hostProvider }).migrateToLatest();
    expect(again.error).toBeUndefined();
    expect(await tablesIn(pool, 'public')).toEqual(
      expect.arrayContaining(['users', 'kysely_migration', 'kysely_migration_lock', 'pets', 'petstore_migration', 'petstore_migration_lock']),
    );
  });

  it("keeps everything of its own in its schema beside a host's own api_keys table, which it leaves as it was", async () => {
    const { pool } = await host();
    await pool.query('create table api_keys (id serial primary key, owner text not null)');
    await pool.query(`insert into api_keys (owner) values ('the host')`);
    const service = await opened({ pool, schema: 'petstore' });
    await inProcessAndRest(service);
    expect(await tablesIn(pool, 'public')).toEqual(['api_keys']);
    expect((await pool.query('select * from public.api_keys')).rows).toEqual([{ id: 1, owner: 'the host' }]);
    expect(await tablesIn(pool, 'petstore')).toEqual([
      'api_keys',
      'deprecated_calls',
      'domains',
      'idempotency_keys',
      'orders',
      'pets',
      'petstore_migration',
      'petstore_migration_lock',
      'petstore_release',
      'rate_limits',
      'usage_days',
      'webhook_deliveries',
      'webhook_endpoints',
      'webhook_events',
    ]);
    // Quota counters, idempotency records and deprecated-call counts went to the schema too.
    expect(Number((await pool.query('select count(*) as n from petstore.rate_limits')).rows[0].n)).toBeGreaterThan(0);
    await service.store.createPet({ name: 'Once', categoryId: 1 }, { apiKey: KEY, idempotencyKey: 'host-1' });
    expect((await pool.query('select key from petstore.idempotency_keys')).rows).toEqual([{ key: 'host-1' }]);
    await service.store.deprecatedUsage(); // written: the next call's count is added to the row (on conflict)
    await service.store.getPet({ petId: 1 }, { apiKey: KEY });
    expect(await service.store.deprecatedUsage()).toEqual([expect.objectContaining({ operationId: 'getPet', calls: 2 })]);
    expect((await pool.query('select calls from petstore.deprecated_calls')).rows).toEqual([{ calls: '2' }]);
  });

  it("leaves the host's pool open and serving after the store's close()", async () => {
    const { pool } = await host();
    const service = await openPetStore({ pool, apiKeys });
    await service.store.listPets({}, { apiKey: KEY });
    await service.close();
    expect(pool.ended).toBe(false);
    expect((await pool.query('select count(*)::int as n from pets')).rows).toEqual([{ n: 0 }]);
    // The store itself refuses to write once closed: as closed, not as an outage of the database.
    await expect(service.store.createPet({ name: 'Late', categoryId: 1 }, { apiKey: KEY })).rejects.toThrow(StoreClosedError);
    for (const id of Object.keys(operations) as OperationId[]) {
      const method = service.store[id] as (input: unknown, context: object) => Promise<unknown>;
      await expect(method({}, { apiKey: KEY }), id).rejects.toThrow(StoreClosedError);
    }
  });

  it("runs on the host's Kysely without its plugins and never destroys it", async () => {
    const { db, pool } = await host();
    const camel = db.withPlugin(new CamelCasePlugin());
    const service = await openPetStore({ db: camel, apiKeys });
    await inProcessAndRest(service);
    await service.close();
    expect(pool.ended).toBe(false);
    expect(await camel.selectFrom('pets').select(['id', 'categoryId']).orderBy('id').execute()).toEqual([
      { id: '1', categoryId: '3' },
      { id: '2', categoryId: '4' },
    ]);
  });

  it("lets the host's own Migrator run the store's migrations, then opens without migrating", async () => {
    const { db, pool } = await host();
    const together: MigrationProvider = {
      getMigrations: async () => ({ ...hostMigrations, ...(await petStoreMigrations({ schema: 'petstore' }).getMigrations()) }),
    };
    const { error, results } = await new Migrator({ db, provider: together }).migrateToLatest();
    expect(error).toBeUndefined();
    const names = Object.keys(await together.getMigrations());
    expect(results?.map((r) => r.status)).toEqual(names.map(() => 'Success'));
    const service = await opened({ pool, schema: 'petstore', migrate: false });
    await inProcessAndRest(service);
    expect(await tablesIn(pool, 'public')).toEqual(['kysely_migration', 'kysely_migration_lock', 'users']);
    expect(await tablesIn(pool, 'petstore')).not.toContain('petstore_migration');
    expect(await kyselyMigrations(pool)).toEqual(['2024-01-01-users', ...Object.keys(await petStoreMigrations().getMigrations())]);
  });

  it('keeps two stores in two schemas of one database apart, beside a third in public', async () => {
    const { pool } = await host();
    const first = await opened({ pool, schema: 'first' });
    const second = await opened({ pool, schema: 'second' });
    // Opened after the others: their migration tables in other schemas must not count as its own.
    const third = await opened({ pool });
    await first.store.createPet({ name: 'Only in first', categoryId: 1 }, { apiKey: KEY });
    await third.store.createPet({ name: 'Only in public', categoryId: 1 }, { apiKey: KEY });
    expect((await first.store.listPets({}, { apiKey: KEY })).data.map((p) => p.name)).toEqual(['Only in first']);
    expect((await second.store.listPets({}, { apiKey: KEY })).data).toEqual([]);
    expect((await third.store.listPets({}, { apiKey: KEY })).data.map((p) => p.name)).toEqual(['Only in public']);
    const { key } = await second.store.apiKeys.create({ plan: 'free' });
    expect((await second.store.listPets({}, { apiKey: key })).data).toEqual([]);
    expect((await refusal(first.store.listPets({}, { apiKey: key }))).code).toBe('invalid_api_key');
  });

  it("answers 503 unavailable on the core path, on a host's Kysely, once its database cannot be reached", async () => {
    const { db, drop } = await host();
    const service = await openPetStore({ db, apiKeys, migrate: true });
    await service.close();
    const store = createPetStore({ db: db as Kysely<Database> });
    const server = createServer(createHttpHandler(store));
    try {
      const url = await listen(server);
      // A create: reads may be answered from the store's memory for a second.
      const create = () =>
        fetch(`${url}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Core path', categoryId: 1 }),
        });
      expect((await create()).status).toBe(201);
      // The database goes away under the host's pool: its open connections are ended, new ones refused.
      await drop();
      const answer = await create();
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toMatchObject({ code: 'unavailable', status: 503 });
    } finally {
      server.close();
    }
  });
});

describe.skipIf(!databaseUrl)("one Migrator for the host's migrations and the store's", () => {
  it('runs both from one provider with allowUnorderedMigrations, after the host already migrated its own', async () => {
    const scratch = await scratchPostgres();
    const pool = new pg.Pool({ connectionString: scratch.url });
    pool.on('error', () => {});
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    try {
      // The host's service has run its own migrations for a while; their names sort after the store's.
      const own: Record<string, Migration> = { '2027-01-01-users': hostMigrations['2024-01-01-users']! };
      expect((await new Migrator({ db, provider: { getMigrations: async () => own } }).migrateToLatest()).error).toBeUndefined();
      const combined: MigrationProvider = {
        getMigrations: async () => ({ ...own, ...(await petStoreMigrations({ schema: 'petstore' }).getMigrations()) }),
      };
      // The store's names sort before the host's executed ones: kysely refuses that order unless told to allow it.
      const strict = await new Migrator({ db, provider: combined }).migrateToLatest();
      expect(String(strict.error)).toContain('corrupted migrations');
      const { error, results } = await new Migrator({ db, provider: combined, allowUnorderedMigrations: true }).migrateToLatest();
      expect(error).toBeUndefined();
      expect(results?.length).toBe(Object.keys(await petStoreMigrations().getMigrations()).length);
      const service = await openPetStore({ pool, schema: 'petstore', migrate: false, apiKeys });
      await service.store.createPet({ name: 'Combined', categoryId: 1 }, { apiKey: KEY });
      await service.close();
      expect((await pool.query('select name from petstore.pets')).rows).toEqual([{ name: 'Combined' }]);
    } finally {
      await db.destroy();
      await scratch.drop();
    }
  });
});

describe("a host's database given twice", () => {
  it('is refused by the types and, before anything is opened, at run time: a pool, a Kysely or a URL, one of them', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres:postgres@127.0.0.1:1/petstore' });
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    // @ts-expect-error a pool and a Kysely together do not compile
    await expect(openPetStore({ pool, db })).rejects.toThrow('openPetStore takes one database: pool and db were given together');
    // @ts-expect-error a pool and a URL together do not compile
    await expect(openPetStore({ pool, databaseUrl: 'postgres://elsewhere/petstore' })).rejects.toThrow(
      'openPetStore takes one database: pool and databaseUrl were given together',
    );
    // @ts-expect-error a Kysely and a data folder together do not compile
    await expect(openPetStore({ db, dataDir: 'memory://' })).rejects.toThrow('db and dataDir were given together');
    await db.destroy();
  });
});

describe.skipIf(!databaseUrl)('migrate: false on a schema the host has not migrated', () => {
  it('refuses to open, naming the fix, instead of failing each call with relation "pets" does not exist', async () => {
    const scratch = await scratchPostgres();
    const pool = new pg.Pool({ connectionString: scratch.url });
    pool.on('error', () => {});
    try {
      const refused = await openPetStore({ pool, schema: 'petstore', migrate: false }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toBe(
        "The store's tables are not in schema petstore, and migrate: false leaves them to your Migrator: run " +
          "petStoreMigrations({ schema: 'petstore' }) in it first, or open without migrate: false.",
      );
      // Once the host's Migrator has run ours, it opens.
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
      const migrator = new Migrator({
        db,
        provider: petStoreMigrations({ schema: 'petstore' }),
        migrationTableName: 'host_migration',
        migrationLockTableName: 'host_migration_lock',
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const service = await openPetStore({ pool, schema: 'petstore', migrate: false, apiKeys });
      expect((await service.store.listPets({ limit: 1 }, { apiKey: KEY })).data).toEqual([]);
      await service.close();
    } finally {
      await pool.end();
      await scratch.drop();
    }
  });
});

describe('a store after close()', () => {
  it('refuses its calls as closed, in-process and over HTTP (500 with the cause logged), never as a database outage (503)', async () => {
    const service = await openPetStore({ dataDir: 'memory://', apiKeys });
    const failures: { code: string; cause: unknown }[] = [];
    const server = createServer(
      createHttpHandler(service.store, { onError: (error) => void failures.push({ code: error.code, cause: error.cause }) }),
    );
    const url = await listen(server);
    try {
      expect((await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
      await service.close();
      await expect(service.store.listPets({ limit: 1 }, { apiKey: KEY })).rejects.toThrow(StoreClosedError);
      const answer = await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ code: 'internal_error', status: 500 });
      expect(failures.at(-1)?.cause).toBeInstanceOf(StoreClosedError);
    } finally {
      server.close();
    }
  });
});
