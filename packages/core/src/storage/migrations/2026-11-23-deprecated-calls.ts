import { sql, type Migration } from 'kysely';

/** How often each key called each deprecated operation, and when it last did: the deprecated-operation inventory. */
export const deprecatedCalls: Migration = {
  async up(db) {
    await sql`
      create table deprecated_calls (
        api_key_id bigint not null references api_keys (id) on delete cascade,
        operation_id text not null,
        calls bigint not null check (calls > 0),
        last_called_at timestamptz not null,
        primary key (api_key_id, operation_id)
      )`.execute(db);
  },
};
