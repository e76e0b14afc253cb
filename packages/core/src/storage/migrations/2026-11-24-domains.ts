import type { Migration } from '../migration-types.js';

/**
 * Custom domains managed while the service runs: their state (`pending`, `verified`, `failed`), the last DNS check
 * and its reason, when the next automatic check is due, and an optional redirect to another host.
 */
export const domains = (schema: string | undefined): Migration => ({
  async up(db) {
    await (schema === undefined ? db.schema : db.schema.withSchema(schema))
      .createTable('domains')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('state', 'text', (col) => col.notNull().defaultTo('pending'))
      .addColumn('added_at', 'timestamptz', (col) => col.notNull())
      .addColumn('checked_at', 'timestamptz')
      .addColumn('reason', 'text')
      .addColumn('checks', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_check_at', 'timestamptz')
      .addColumn('redirect_to', 'text')
      .addColumn('redirect_status', 'integer')
      .execute();
  },
});
