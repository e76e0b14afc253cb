import { sql, type Kysely } from 'kysely';
import type { Order } from '../domain/order-schemas.js';
import type { Database } from './database.js';
import { groupedStatements } from './grouped-statements.js';
import { toOrder, type Closing, type OrderRepository, type OrderRow } from './order-repository.js';
import { tableIn } from './schema.js';

interface Placing {
  petId: number;
  owner: string;
  now: Date;
}

interface Closure {
  orderId: number;
  owner: string;
  closing: Closing;
  now: Date;
}

/** Each item's order, found by `key` among the rows (distinct in a group), or undefined, in the order given. */
function matched<Item>(items: readonly Item[], rows: readonly OrderRow[], key: (item: Item) => number, rowKey: (row: OrderRow) => number) {
  const byKey = new Map(rows.map((row) => [Number(rowKey(row)), toOrder(row)]));
  return items.map((item) => byKey.get(key(item)));
}

/**
 * Many orders of distinct pets in one statement, as `place` makes one: each pet that is `available` with no order
 * placed becomes `pending` (version raised, `on_order` set) and gets its order; the others nothing.
 */
async function placeMany(db: Kysely<Database>, schema: string | undefined, placings: readonly Placing[]) {
  const { rows } = await sql<OrderRow>`
    with given as (
      select * from unnest(${placings.map((p) => p.petId)}::bigint[], ${placings.map((p) => p.owner)}::text[],
          ${placings.map((p) => p.now.toISOString())}::timestamptz[])
        with ordinality as g(pet_id, owner, placed_at, position)
    ), taken as (
      update ${tableIn(schema, 'pets')} as p set status = 'pending', on_order = true, version = p.version + 1
      from given g
      where p.id = g.pet_id and p.status = 'available' and not p.on_order
      returning p.id
    )
    insert into ${tableIn(schema, 'orders')} (pet_id, owner, status, placed_at)
    select g.pet_id, g.owner, 'placed', g.placed_at from given g join taken t on t.id = g.pet_id order by g.position
    returning id, pet_id, status, placed_at`.execute(db);
  return matched(placings, rows, (p) => p.petId, (row) => Number(row.pet_id));
}

/**
 * Many closings of distinct orders in one statement, as `close` makes one: each `placed` order of its owner is
 * closed and its pet's status set (version raised, `on_order` cleared); the others nothing.
 */
async function closeMany(db: Kysely<Database>, schema: string | undefined, closures: readonly Closure[]) {
  const { rows } = await sql<OrderRow>`
    with given as (
      select * from unnest(${closures.map((c) => c.orderId)}::bigint[], ${closures.map((c) => c.owner)}::text[],
          ${closures.map((c) => c.closing.status)}::text[], ${closures.map((c) => c.closing.petStatus)}::text[],
          ${closures.map((c) => c.now.toISOString())}::timestamptz[])
        as g(order_id, owner, status, pet_status, closed_at)
    ), closed as (
      update ${tableIn(schema, 'orders')} as o set status = g.status, closed_at = g.closed_at
      from given g
      where o.id = g.order_id and o.owner = g.owner and o.status = 'placed'
      returning o.id, o.pet_id, o.status, o.placed_at, g.pet_status
    ), released as (
      update ${tableIn(schema, 'pets')} as p set status = c.pet_status, on_order = false, version = p.version + 1
      from closed c
      where p.id = c.pet_id
    )
    select id, pet_id, status, placed_at from closed`.execute(db);
  return matched(closures, rows, (c) => c.orderId, (row) => Number(row.id));
}

/**
 * The repository with its sales and closings grouped ({@link groupedStatements}): those of an event-loop turn, or
 * made while a group's statement is under way, go as one statement and one commit, each with its own condition and
 * answer. Two orders of one pet, or two closings of one order, never share a statement: the later goes in the next
 * group, after the first is made, so exactly one of them finds the pet available or the order placed. For the
 * store's own repository only: changes inside a transaction must not be grouped.
 * @example const orders = withGroupedOrders(createOrderRepository(db), db)
 */
export function withGroupedOrders(repository: OrderRepository, db: Kysely<Database>, schema?: string): OrderRepository {
  const place = groupedStatements<Placing, Order | undefined>({
    many: (placings) => placeMany(db, schema, placings),
    one: ({ petId, owner, now }) => repository.place(petId, owner, now),
    keyOf: (p) => p.petId,
  });
  const close = groupedStatements<Closure, Order | undefined>({
    many: (closures) => closeMany(db, schema, closures),
    one: ({ orderId, owner, closing, now }) => repository.close(orderId, owner, closing, now),
    keyOf: (c) => c.orderId,
  });
  return {
    ...repository,
    place: (petId, owner, now) => place({ petId, owner, now }),
    close: (orderId, owner, closing, now) => close({ orderId, owner, closing, now }),
  };
}
