import { sql, type Kysely } from 'kysely';
import type { Inventory, Order, OrderStatus } from '../domain/order-schemas.js';
import type { Database } from './database.js';
import { tableIn } from './schema.js';

/** What closes an order, and what its pet becomes then. */
export type Closing = { status: 'completed'; petStatus: 'sold' } | { status: 'cancelled'; petStatus: 'available' };

/** Reads and writes orders, each with its pet in the same statement. */
export interface OrderRepository {
  /**
   * Places an order of an `available` pet for `owner`, and makes the pet `pending` (version raised, `on_order` set), in
   * one statement: of concurrent orders of one pet exactly one finds it available. Undefined when it was not.
   */
  place(petId: number, owner: string, now: Date): Promise<Order | undefined>;
  /**
   * Closes a `placed` order of `owner` and sets its pet's status, in one statement: of concurrent closings of one order
   * exactly one finds it placed. Undefined when there was none to close.
   */
  close(orderId: number, owner: string, closing: Closing, now: Date): Promise<Order | undefined>;
  /** One order of `owner`, whatever its status. */
  find(orderId: number, owner: string): Promise<Order | undefined>;
  /** Up to `limit` orders of `owner` with an id above `afterId`, in ascending id order. */
  list(query: { owner: string; status?: OrderStatus | undefined; afterId: number; limit: number }): Promise<Order[]>;
  /** How many pets have each status. */
  inventory(): Promise<Inventory>;
}

/** A row of `orders` as the drivers return it. */
export interface OrderRow {
  id: number | string;
  pet_id: number | string;
  status: string;
  placed_at: Date | string;
}

/** The order a row holds. */
export const toOrder = (row: OrderRow): Order => ({
  id: Number(row.id),
  petId: Number(row.pet_id),
  status: row.status as OrderStatus,
  placedAt: new Date(row.placed_at).toISOString(),
});

/**
 * The orders table through kysely, its two changes as single statements (a data-modifying `with`), so that no race
 * and no transaction pooler can split the check from the change.
 * @example const orders = createOrderRepository(db, schema); await orders.place(7, 'k:1', new Date())
 */
export function createOrderRepository(db: Kysely<Database>, schema?: string): OrderRepository {
  const pets = tableIn(schema, 'pets');
  const orders = tableIn(schema, 'orders');
  return {
    async place(petId, owner, now) {
      const { rows } = await sql<OrderRow>`
        with taken as (
          update ${pets} set status = 'pending', on_order = true, version = version + 1
          where id = ${petId} and status = 'available' and not on_order
          returning id
        )
        insert into ${orders} (pet_id, owner, status, placed_at)
        select id, ${owner}, 'placed', ${now} from taken
        returning id, pet_id, status, placed_at`.execute(db);
      return rows[0] && toOrder(rows[0]);
    },
    async close(orderId, owner, closing, now) {
      const { rows } = await sql<OrderRow>`
        with closed as (
          update ${orders} set status = ${closing.status}, closed_at = ${now}
          where id = ${orderId} and owner = ${owner} and status = 'placed'
          returning id, pet_id, status, placed_at
        ), released as (
          update ${pets} set status = ${closing.petStatus}, on_order = false, version = version + 1
          where id = (select pet_id from closed)
        )
        select id, pet_id, status, placed_at from closed`.execute(db);
      return rows[0] && toOrder(rows[0]);
    },
    async find(orderId, owner) {
      const row = await db
        .selectFrom('orders')
        .select(['id', 'pet_id', 'status', 'placed_at'])
        .where('id', '=', orderId)
        .where('owner', '=', owner)
        .executeTakeFirst();
      return row && toOrder(row);
    },
    async list({ owner, status, afterId, limit }) {
      let query = db.selectFrom('orders').select(['id', 'pet_id', 'status', 'placed_at']).where('owner', '=', owner).where('id', '>', afterId);
      if (status) query = query.where('status', '=', status);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map(toOrder);
    },
    async inventory() {
      const rows = await db.selectFrom('pets').select(['status', (eb) => eb.fn.countAll<string>().as('count')]).groupBy('status').execute();
      const counts: Inventory = { available: 0, pending: 0, sold: 0 };
      for (const row of rows) if (row.status in counts) counts[row.status as keyof Inventory] = Number(row.count);
      return counts;
    },
  };
}
