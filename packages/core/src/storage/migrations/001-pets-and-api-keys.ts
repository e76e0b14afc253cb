import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { schemaExists, tableIn } from '../schema.js';

/**
 * Animals, with an index serving `status` + `id` order, and API keys stored as SHA-256 hashes; the schema first, when
 * one is named and missing.
 */
export const petsAndApiKeys = (schema: string | undefined): Migration => ({
  async up(db) {
    // Only when missing: `create schema if not exists public` needs the right to create schemas in the database.
    if (schema !== undefined && !(await schemaExists(db, schema))) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    await sql`
      create table ${tableIn(schema, 'pets')} (
        id bigint generated always as identity (maxvalue 9007199254740991) primary key,
        name text not null,
        category_id bigint not null check (category_id between 1 and 9007199254740991),
        status text not null check (status in ('available', 'pending', 'sold')),
        created_at timestamptz not null default now()
      )`.execute(db);
    await sql`create index pets_status_id_idx on ${tableIn(schema, 'pets')} (status, id)`.execute(db);
    await sql`
      create table ${tableIn(schema, 'api_keys')} (
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
});
