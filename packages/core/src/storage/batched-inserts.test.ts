import { testDatabases } from '@petstore/testing';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../domain/pet-schemas.js';
import { withBatchedInserts } from './batched-inserts.js';
import type { Database } from './database.js';
import { createPetRepository } from './pet-repository.js';

/** The repository, counting the statements that reach the database. */
function counted(db: Kysely<Database>) {
  const statements: string[] = [];
  const watched = db.withPlugin({
    transformQuery: (args) => {
      statements.push(args.node.kind);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { pets: withBatchedInserts(createPetRepository(watched), watched), statements };
}

describe.each(testDatabases)('grouped inserts on $name', (database) => {
  let close: () => Promise<void>;
  let db: Kysely<Database>;
  beforeAll(async () => {
    const opened = await database.open();
    db = opened.db;
    close = opened.close;
  });
  afterAll(() => close());

  it('sends the animals created in one event-loop turn as one statement, each with its own row', async () => {
    const { pets, statements } = counted(db);
    const given = Array.from({ length: 40 }, (_, i) => ({
      name: `Grouped ${i} ${'🐈'.repeat(i % 3)}`,
      categoryId: i === 7 ? 9007199254740991 : (i % 20) + 1,
      status: (['available', 'pending', 'sold'] as const)[i % 3]!,
    }));
    const created = await Promise.all(given.map((pet) => pets.insert(pet)));
    expect(statements.length).toBe(1);
    expect(created.map(({ id: _id, ...pet }) => pet)).toEqual(given);
    const ids = created.map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(40);
    for (const pet of [created[0]!, created[7]!, created[39]!]) expect((await pets.findById(pet.id))?.pet).toEqual(pet);
  });

  it('groups creates that arrive in separate callbacks of one turn, as requests do, though PGlite answers at once', async () => {
    const { pets, statements } = counted(db);
    const pet = { name: 'Turn', categoryId: 3, status: 'pending' as const };
    // Each callback is its own task, run in one phase of the loop with the microtasks drained in between, like the
    // socket reads of requests arriving together.
    const created = await Promise.all(
      Array.from({ length: 20 }, () => new Promise<Pet>((resolve, reject) => setImmediate(() => pets.insert(pet).then(resolve, reject)))),
    );
    expect(statements.length).toBe(1);
    expect(new Set(created.map((p) => p.id)).size).toBe(20);
  });

  it('sends the animals created while a statement is under way together in the next one', async () => {
    const { pets, statements } = counted(db);
    const pet = { name: 'Later', categoryId: 4, status: 'sold' as const };
    const first = pets.insert(pet);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = await Promise.all(Array.from({ length: 10 }, () => pets.insert(pet)));
    expect(statements.length).toBe(2);
    expect(rest.every((p) => p.id > 0)).toBe(true);
    await first;
  });

  it('gives each animal of a failed group its own outcome', async () => {
    const { pets } = counted(db);
    const good = { name: 'Fine', categoryId: 1, status: 'available' as const };
    // Refused by the table's check constraint, as no validated input ever is.
    const bad = { name: 'Odd', categoryId: 1, status: 'lost' as unknown as Pet['status'] };
    const first = pets.insert(good);
    const outcomes = await Promise.allSettled([pets.insert(good), pets.insert(bad), pets.insert(good)]);
    await first;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const stored = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value as Pet] : []));
    for (const pet of stored) expect((await pets.findById(pet.id))?.pet).toEqual(pet);
  });

});
