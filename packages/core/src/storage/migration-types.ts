import type { Kysely } from 'kysely';

// kysely 0.28 exports its migration types from `kysely`, 0.29 from `kysely/migration` only (the root's become type
// errors): declared here by shape, so that the store's types compile against either and fit either's Migrator.

/** One migration, as kysely's `Migrator` runs it. */
export interface Migration {
  up(db: Kysely<any>): Promise<void>;
  down?(db: Kysely<any>): Promise<void>;
}

/**
 * Where a kysely `Migrator` finds its migrations; `petStoreMigrations` answers one.
 * @example new Migrator({ db, provider: petStoreMigrations({ schema: 'petstore' }) })
 */
export interface MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>>;
}
