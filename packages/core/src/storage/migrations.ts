import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';

const migrations: Record<string, Migration> = {
  '2026-11-21-001-pets-and-api-keys': {
    async up(db) {
      await sql`
        create table pets (
          id bigint generated always as identity (maxvalue 9007199254740991) primary key,
          name text not null,
          category_id bigint not null check (category_id between 1 and 9007199254740991),
          status text not null check (status in ('available', 'pending', 'sold')),
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index pets_status_id_idx on pets (status, id)`.execute(db);
      await sql`
        create table api_keys (
          id bigint generated always as identity primary key,
          key_hash text not null unique,
          label text,
          plan text not null check (plan in ('free', 'pro', 'business', 'enterprise')),
          per_minute integer check (per_minute > 0),
          per_day integer check (per_day > 0),
          created_at timestamptz not null default now(),
          last_used_at timestamptz,
          revoked_at timestamptz
        )`.execute(db);
    },
  },
};

/**
 * Brings the schema up to date; safe to run from several instances at once (kysely's Migrator locks).
 * @example await migrateToLatest(db)
 */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`Database migration ${failed ?? ''} failed: ${String((error as Error).message ?? error)}`, {
      cause: error,
    });
  }
}
