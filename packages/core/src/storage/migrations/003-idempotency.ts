import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * First responses to `Idempotency-Key` requests, per API key. A row without a response is a claim in progress;
 * `claim` names its owner, so only that request can complete or release it.
 */
export const idempotency = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      create table ${tableIn(schema, 'idempotency_keys')} (
        api_key_id bigint not null references ${tableIn(schema, 'api_keys')} (id) on delete cascade,
        key text not null check (key ~ '^[!-~]{1,255}$'),
        request_hash text not null,
        claim uuid not null,
        created_at timestamptz not null,
        response_status integer,
        response_body json,
        primary key (api_key_id, key),
        check ((response_status is null) = (response_body is null))
      )`.execute(db);
    await sql`create index idempotency_keys_created_at_idx on ${tableIn(schema, 'idempotency_keys')} (created_at)`.execute(db);
  },
});
