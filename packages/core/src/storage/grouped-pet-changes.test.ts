import { testDatabases } from '@petstore/testing';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../domain/pet-schemas.js';
import type { Database } from './database.js';
import { withGroupedChanges } from './grouped-pet-changes.js';
import { createPetRepository, type StoredPet } from './pet-repository.js';

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
  return { pets: withGroupedChanges(createPetRepository(seen), seen), statements };
}

const versionOf = (changed: StoredPet | undefined) => changed?.version;

describe.each(testDatabases)('grouped changes on $name', (database) => {
  let close: () => Promise<void>;
  let db: Kysely<Database>;
  const fresh = (name = 'Fresh') => createPetRepository(db).insert({ name, categoryId: 2, status: 'available' });
  beforeAll(async () => {
    const opened = await database.open();
    db = opened.db;
    close = opened.close;
  });
  afterAll(() => close());

  it('sends the changes of one turn as one statement, each with its own condition and answer', async () => {
    const { pets, statements } = watched(db);
    const [a, b, c, d, onOrder] = await Promise.all([fresh('A'), fresh('B'), fresh('C'), fresh('D'), fresh('On order')]);
    await sql`update pets set on_order = true, status = 'pending' where id = ${onOrder!.id}`.execute(db);
    statements.length = 0;
    const results = await Promise.all([
      pets.update(a!.id, { name: 'A2', categoryId: 9007199254740991 }, [1]),
      pets.update(b!.id, { status: 'sold' }, [7, 8]),
      pets.update(c!.id, { status: 'pending' }, '*'),
      pets.update(d!.id, { name: 'D2' }),
      pets.update(onOrder!.id, { status: 'sold' }),
      pets.update(onOrder!.id, { name: 'Renamed on order' }, [1]),
      pets.update(9_000_000_000, { name: 'Nobody' }),
    ]);
    // The second change of the pet on order waits for the next group.
    expect(statements.length).toBe(2);
    expect(results.map(versionOf)).toEqual([2, undefined, 2, 2, undefined, 2, undefined]);
    expect(results[0]?.pet).toEqual({ id: a!.id, name: 'A2', categoryId: 9007199254740991, status: 'available' });
    expect(results[2]?.pet).toEqual({ ...c!, status: 'pending' });
    expect(results[3]?.pet).toEqual({ ...d!, name: 'D2' });
    expect(results[5]).toEqual({ pet: { ...onOrder!, name: 'Renamed on order', status: 'pending' }, version: 2, onOrder: true });
    expect(await pets.findById(b!.id)).toEqual({ pet: b, version: 1, onOrder: false });
  });

  it('never merges two changes of one animal: of many with one If-Match, exactly one is made', async () => {
    const { pets, statements } = watched(db);
    const pet = await fresh();
    const other = await fresh();
    statements.length = 0;
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => pets.update(pet.id, { name: `Racer ${i}` }, [1])),
      pets.update(other.id, { name: 'Alongside' }, [1]),
    ]);
    const made = results.slice(0, 20).flatMap((r, i) => (r ? [i] : []));
    expect(made).toEqual([0]);
    expect(results[20]?.version).toBe(2);
    expect(await pets.findById(pet.id)).toEqual({ pet: { ...pet, name: 'Racer 0' }, version: 2, onOrder: false });
  });

  it('makes unconditional changes of one animal in one turn one after the other, in the order they came', async () => {
    const { pets } = watched(db);
    const pet = await fresh();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => pets.update(pet.id, i % 2 ? { status: 'sold' } : { name: `Turn ${i}` })));
    expect(results.map(versionOf)).toEqual([2, 3, 4, 5, 6]);
    expect(results.map((r) => r?.pet.name)).toEqual(['Turn 0', 'Turn 0', 'Turn 2', 'Turn 2', 'Turn 4']);
    expect(await pets.findById(pet.id)).toEqual({ pet: { ...pet, name: 'Turn 4', status: 'sold' }, version: 6, onOrder: false });
  });

  it('sends the deletes of one turn as one statement; of many deletes of one animal, one removes it', async () => {
    const { pets, statements } = watched(db);
    const [a, b, c, onOrder] = await Promise.all([fresh(), fresh(), fresh(), fresh()]);
    await sql`update pets set on_order = true where id = ${onOrder!.id}`.execute(db);
    statements.length = 0;
    const results = await Promise.all([
      pets.delete(a!.id, [1]),
      pets.delete(b!.id, [2]),
      pets.delete(c!.id, '*'),
      pets.delete(onOrder!.id),
      ...Array.from({ length: 5 }, () => pets.delete(a!.id, '*')),
    ]);
    expect(results.map((r) => r?.pet.id)).toEqual([a!.id, undefined, c!.id, undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(statements.length).toBe(6);
    expect(await pets.findById(a!.id)).toBeUndefined();
    expect(await pets.findById(b!.id)).toEqual({ pet: b, version: 1, onOrder: false });
    expect((await pets.findById(onOrder!.id))?.onOrder).toBe(true);
  });

  it('gives each change of a failed group its own outcome', async () => {
    const { pets } = watched(db);
    const [a, b, c] = await Promise.all([fresh(), fresh(), fresh()]);
    // Refused by the table's check constraint, as no validated input ever is.
    const lost = { status: 'lost' as unknown as Pet['status'] };
    const outcomes = await Promise.allSettled([pets.update(a!.id, { name: 'Kept' }), pets.update(b!.id, lost), pets.update(c!.id, { name: 'Kept too' }, [1])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await pets.findById(a!.id))?.pet.name).toBe('Kept');
    expect(await pets.findById(b!.id)).toEqual({ pet: b, version: 1, onOrder: false });
    expect(await pets.findById(c!.id)).toEqual({ pet: { ...c!, name: 'Kept too' }, version: 2, onOrder: false });
  });
});
