import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * The keys known at a client address (`k:<digest>:<address>` rows of `rate_limits`) read as one set, by the end of
 * their name: an index on the name reversed, of those rows only. Only adds, so the release before runs on it.
 */
export const knownKeysByAddress = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      create index rate_limits_known_at_idx on ${tableIn(schema, 'rate_limits')} (reverse(key::text) text_pattern_ops)
      where key like 'k:%'`.execute(db);
  },
});
