import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * A version per pet, raised by every change in the statement that makes it (DECISIONS "The store changes"); rows of
 * earlier releases start at 1, as every new row does. The ETag of a replayed write (`response_etag`), null for writes
 * that answer none. Both only add, so the release before runs on this schema (DECISIONS "Releases both ways").
 */
export const petVersions = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`alter table ${tableIn(schema, 'pets')} add column version bigint not null default 1`.execute(db);
    await sql`alter table ${tableIn(schema, 'idempotency_keys')} add column response_etag text`.execute(db);
  },
});
