// Compiled strictly and run by check-packages.sh in a scratch host that installed kysely 0.29 beside the packed
// packages: the host's own Migrator (0.29 keeps it in kysely/migration) runs the store's migrations in a schema of
// its own, and the store serves in-process calls on the host's pool; then openPetStore migrates a second schema itself.
import { randomBytes } from 'node:crypto';
import { generateApiKey, openPetStore, petStoreMigrations } from '@petstore/embed';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
pool.on('error', () => {});
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
const schema = `kysely_next_${randomBytes(4).toString('hex')}`;
const own = `${schema}_own`;
try {
  const { error } = await new Migrator({
    db,
    provider: petStoreMigrations({ schema }),
    migrationTableName: 'petstore_migration',
    migrationLockTableName: 'petstore_migration_lock',
    migrationTableSchema: schema,
  }).migrateToLatest();
  if (error) throw error;
  const apiKey = generateApiKey();
  const hosted = await openPetStore({ pool, schema, migrate: false, apiKeys: [{ key: apiKey, plan: 'pro' }] });
  const { data: pet } = await hosted.store.createPet({ name: 'Next', categoryId: 1 }, { apiKey });
  const { data: read } = await hosted.store.getPet({ petId: pet.id }, { apiKey });
  await hosted.close();
  const migrated = await openPetStore({ db, schema: own, apiKeys: [{ key: apiKey, plan: 'pro' }] });
  const { data: pets } = await migrated.store.listPets({ limit: 1 }, { apiKey });
  await migrated.close();
  if (read.name !== 'Next' || pets.length !== 0) throw new Error(`unexpected answers: ${JSON.stringify({ read, pets })}`);
  console.log('kysely-next-host: kysely 0.29 runs the migrations (its Migrator and ours) and the store on the host pool');
} finally {
  await pool.query(`drop schema if exists ${schema} cascade`);
  await pool.query(`drop schema if exists ${own} cascade`);
  await db.destroy();
}
