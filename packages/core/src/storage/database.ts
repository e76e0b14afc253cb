import type { ColumnType, Generated } from 'kysely';

/** int8 columns: `pg` reads them as strings, PGlite as numbers; rows are normalised with `Number()` when mapped. */
type Int8 = ColumnType<number | string, number, number>;
/** An identity column: assigned by the database, never written. */
type Identity = ColumnType<number | string, never, never>;

export interface PetsTable {
  id: Identity;
  name: string;
  category_id: Int8;
  status: string;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: Identity;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  label: string | null;
  plan: string;
  per_minute: number | null;
  per_day: number | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * The tables of the service, as kysely sees them.
 * @example const db = new Kysely<Database>({ dialect })
 */
export interface Database {
  pets: PetsTable;
  api_keys: ApiKeysTable;
}
