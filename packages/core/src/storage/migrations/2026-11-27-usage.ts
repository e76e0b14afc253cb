import type { Migration } from '../migration-types.js';

/**
 * The usage ledger: per subject (an API key, `k:ID`, or a host's principal, `p:ID`), UTC day, plan and operation, the
 * requests served, refused with 429 (`rate_limited`, or a ban) and answered with another 4xx or a 5xx.
 */
export const usage = (schema: string | undefined): Migration => ({
  async up(db) {
    const builder = schema === undefined ? db.schema : db.schema.withSchema(schema);
    await builder
      .createTable('usage_days')
      .addColumn('day', 'date', (col) => col.notNull())
      .addColumn('subject', 'text', (col) => col.notNull())
      .addColumn('plan', 'text', (col) => col.notNull())
      .addColumn('operation_id', 'text', (col) => col.notNull())
      .addColumn('served', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('rate_limited', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('banned', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('client_errors', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('server_errors', 'bigint', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_days_pkey', ['day', 'subject', 'plan', 'operation_id'])
      .execute();
  },
});
