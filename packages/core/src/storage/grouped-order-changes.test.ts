import { testDatabases } from '@petstore/testing';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { withGroupedOrders } from './grouped-order-changes.js';
import { createOrderRepository, type Closing } from './order-repository.js';
import { createPetRepository } from './pet-repository.js';

const completed: Closing = { status: 'completed', petStatus: 'sold' };
const cancelled: Closing = { status: 'cancelled', petStatus: 'available' };

/** The repository, listing the statements that reach the database. */
function watched(db: Kysely<Database>) {
  const statements: string[] = [];
  const seen = db.withPlugin({
    transformQuery: (args) => {
      statements.push(args.node.kind);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { orders: withGroupedOrders(createOrderRepository(seen), seen), statements };
}

describe.each(testDatabases)('grouped orders on $name', (database) => {
  let close: () => Promise<void>;
  let db: Kysely<Database>;
  const fresh = (status: 'available' | 'sold' = 'available') => createPetRepository(db).insert({ name: 'For sale', categoryId: 3, status });
  const stateOf = async (petId: number) => {
    const pet = await createPetRepository(db).findById(petId);
    const { rows } = await sql<{ status: string }>`select status from orders where pet_id = ${petId} order by id`.execute(db);
    return { status: pet?.pet.status, version: pet?.version, onOrder: pet?.onOrder, orders: rows.map((r) => r.status) };
  };
  beforeAll(async () => {
    const opened = await database.open();
    db = opened.db;
    close = opened.close;
  });
  afterAll(() => close());

  it('places the orders of one turn in one statement, each pet taken only if available', async () => {
    const { orders, statements } = watched(db);
    const [a, b, sold, c] = await Promise.all([fresh(), fresh(), fresh('sold'), fresh()]);
    const times = [0, 1, 2, 3, 4].map((i) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, i)));
    statements.length = 0;
    const placed = await Promise.all([
      orders.place(a!.id, 'k:1', times[0]!),
      orders.place(sold!.id, 'k:1', times[1]!),
      orders.place(b!.id, 'k:2', times[2]!),
      orders.place(9_000_000_000, 'k:1', times[3]!),
      orders.place(c!.id, 'p:host', times[4]!),
    ]);
    expect(statements.length).toBe(1);
    expect(placed.map((o) => o && { petId: o.petId, status: o.status, placedAt: o.placedAt })).toEqual([
      { petId: a!.id, status: 'placed', placedAt: times[0]!.toISOString() },
      undefined,
      { petId: b!.id, status: 'placed', placedAt: times[2]!.toISOString() },
      undefined,
      { petId: c!.id, status: 'placed', placedAt: times[4]!.toISOString() },
    ]);
    expect(await orders.find(placed[2]!.id, 'k:2')).toEqual(placed[2]);
    expect(await orders.find(placed[2]!.id, 'k:1')).toBeUndefined();
    expect(await stateOf(a!.id)).toEqual({ status: 'pending', version: 2, onOrder: true, orders: ['placed'] });
    expect(await stateOf(sold!.id)).toEqual({ status: 'sold', version: 1, onOrder: false, orders: [] });
  });

  it('never merges two orders of one pet: of many in one turn, exactly one is placed', async () => {
    const { orders } = watched(db);
    const [pet, other] = await Promise.all([fresh(), fresh()]);
    const now = new Date();
    const placed = await Promise.all([...Array.from({ length: 30 }, (_, i) => orders.place(pet!.id, `k:${i}`, now)), orders.place(other!.id, 'k:1', now)]);
    expect(placed.slice(0, 30).flatMap((o, i) => (o ? [i] : []))).toEqual([0]);
    expect(placed[30]?.petId).toBe(other!.id);
    expect(await stateOf(pet!.id)).toEqual({ status: 'pending', version: 2, onOrder: true, orders: ['placed'] });
  });

  it('closes the orders of one turn in one statement, each only by its owner and while placed', async () => {
    const { orders, statements } = watched(db);
    const [a, b, c] = await Promise.all([fresh(), fresh(), fresh()]);
    const now = new Date();
    const [first, second, third] = await Promise.all([orders.place(a!.id, 'k:1', now), orders.place(b!.id, 'k:1', now), orders.place(c!.id, 'k:1', now)]);
    statements.length = 0;
    const closed = await Promise.all([
      orders.close(first!.id, 'k:1', completed, now),
      orders.close(second!.id, 'k:1', cancelled, now),
      orders.close(third!.id, 'k:2', completed, now),
      orders.close(9_000_000_000, 'k:1', completed, now),
    ]);
    expect(statements.length).toBe(1);
    expect(closed.map((o) => o?.status)).toEqual(['completed', 'cancelled', undefined, undefined]);
    expect(await stateOf(a!.id)).toEqual({ status: 'sold', version: 3, onOrder: false, orders: ['completed'] });
    expect(await stateOf(b!.id)).toEqual({ status: 'available', version: 3, onOrder: false, orders: ['cancelled'] });
    expect(await stateOf(c!.id)).toEqual({ status: 'pending', version: 2, onOrder: true, orders: ['placed'] });
  });

  it('of completes and cancels of one order in one turn, exactly one is done', async () => {
    const { orders } = watched(db);
    const pet = await fresh();
    const now = new Date();
    const order = await orders.place(pet.id, 'k:1', now);
    const closed = await Promise.all(Array.from({ length: 10 }, (_, i) => orders.close(order!.id, 'k:1', i % 2 ? cancelled : completed, now)));
    expect(closed.flatMap((o, i) => (o ? [[i, o.status]] : []))).toEqual([[0, 'completed']]);
    expect(await stateOf(pet.id)).toEqual({ status: 'sold', version: 3, onOrder: false, orders: ['completed'] });
  });

  it('gives each order of a failed group its own outcome', async () => {
    const { orders } = watched(db);
    const [a, b, c] = await Promise.all([fresh(), fresh(), fresh()]);
    const now = new Date();
    // Refused by the orders table (owner is not null), as no caller ever is.
    const outcomes = await Promise.allSettled([orders.place(a!.id, 'k:1', now), orders.place(b!.id, null as unknown as string, now), orders.place(c!.id, 'k:1', now)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await stateOf(a!.id)).toEqual({ status: 'pending', version: 2, onOrder: true, orders: ['placed'] });
    expect(await stateOf(b!.id)).toEqual({ status: 'available', version: 1, onOrder: false, orders: [] });
  });
});
