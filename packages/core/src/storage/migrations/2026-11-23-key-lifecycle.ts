import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * Key lifecycle: when a key stops working (`expires_at`, set at creation or by a rotation's grace period), and the
 * key that replaced a rotated one (`replaced_by`).
 */
export const keyLifecycle = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      alter table ${tableIn(schema, 'api_keys')}
        add column expires_at timestamptz,
        add column replaced_by bigint references ${tableIn(schema, 'api_keys')} (id)`.execute(db);
  },
});
