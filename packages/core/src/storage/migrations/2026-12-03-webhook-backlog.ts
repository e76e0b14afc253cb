import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * The pending deliveries by age, of those rows only: the backlog that metrics read at every scrape (how many, and
 * the oldest) is one scan of this index, however many deliveries were made; the endpoint beside it counts the
 * operator's pending per endpoint from it alone. Only adds, so the release before runs on it.
 */
export const webhookBacklog = (schema: string | undefined): Migration => ({
  async up(db) {
    await sql`
      create index webhook_deliveries_pending_idx on ${tableIn(schema, 'webhook_deliveries')} (created_at, endpoint_id)
      where status = 'pending'`.execute(db);
  },
});
