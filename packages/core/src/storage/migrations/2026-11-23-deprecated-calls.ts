import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/** How often each key called each deprecated operation, and when it last did: the deprecated-operation inventory. */
export const deprecatedCalls = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      create table ${tableIn(schema, 'deprecated_calls')} (
        api_key_id bigint not null references ${tableIn(schema, 'api_keys')} (id) on delete cascade,
        operation_id text not null,
        calls bigint not null check (calls > 0),
        last_called_at timestamptz not null,
        primary key (api_key_id, operation_id)
      )`.execute(db);
  },
});
