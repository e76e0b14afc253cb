import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * Orders (DECISIONS "Orders"): one row a sale, owned by the first key of a rotation (`k:ID`) or a host's principal
 * (`p:ID`). At most one order of a pet is `placed` (a partial unique index, beside the statements' own guard), and
 * `pets.on_order` marks the pet of that order, so that a change of the pet can be refused by its own row. Only adds.
 */
export const orders = (schema: string | undefined): Migration => ({
  async up(db) {
    const orders = tableIn(schema, 'orders');
    await sql`alter table ${tableIn(schema, 'pets')} add column on_order boolean not null default false`.execute(db);
    await sql`
      create table ${orders} (
        id bigint generated always as identity (maxvalue 9007199254740991) primary key,
        pet_id bigint not null,
        owner text not null,
        status text not null check (status in ('placed', 'completed', 'cancelled')),
        placed_at timestamptz not null,
        closed_at timestamptz
      )`.execute(db);
    await sql`create index orders_owner_id_idx on ${orders} (owner, id)`.execute(db);
    await sql`create unique index orders_one_placed_per_pet on ${orders} (pet_id) where status = 'placed'`.execute(db);
  },
});
