import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * Quota counters shared by every instance: the columns rate-limiter-flexible's PostgreSQL store reads and writes
 * (`expire` in Unix milliseconds), created here so the library never creates tables at run time.
 */
export const rateLimits = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      create table ${tableIn(schema, 'rate_limits')} (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      )`.execute(db);
    await sql`create index rate_limits_expire_idx on ${tableIn(schema, 'rate_limits')} (expire)`.execute(db);
  },
});
