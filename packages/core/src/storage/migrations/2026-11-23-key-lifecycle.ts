import { sql, type Migration } from 'kysely';

/**
 * Key lifecycle: when a key stops working (`expires_at`, set at creation or by a rotation's grace period), and the
 * key that replaced a rotated one (`replaced_by`).
 */
export const keyLifecycle: Migration = {
  async up(db) {
    await sql`
      alter table api_keys
        add column expires_at timestamptz,
        add column replaced_by bigint references api_keys (id)`.execute(db);
  },
};
