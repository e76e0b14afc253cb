import { sql, type Kysely } from 'kysely';
import type { Pet } from '../domain/pet-schemas.js';
import type { Database } from './database.js';
import { toPet, type PetRepository, type PetRow } from './pet-repository.js';
import { tableIn } from './schema.js';

const MAX_BATCH = 100;

interface Waiter {
  pet: Omit<Pet, 'id'>;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

/** One statement for many animals; the rows come back in the order given (ids rise in insertion order). */
async function insertMany(db: Kysely<Database>, schema: string | undefined, pets: readonly Omit<Pet, 'id'>[]): Promise<Pet[]> {
  const { rows } = await sql<PetRow>`
    insert into ${tableIn(schema, 'pets')} (name, category_id, status)
    select name, category_id, status
    from unnest(${pets.map((p) => p.name)}::text[], ${pets.map((p) => p.categoryId)}::bigint[], ${pets.map((p) => p.status)}::text[])
      with ordinality as given(name, category_id, status, position)
    order by position
    returning id, name, category_id, status`.execute(db);
  return rows.map(toPet).sort((a, b) => a.id - b.id);
}

/**
 * The repository with its inserts grouped: one statement is in flight at a time, and animals created meanwhile go
 * together in the next (up to 100), so a busy service makes one round trip and one commit per group instead of one
 * per animal. The first group of an idle repository is sent at the end of the event-loop turn, so the creates read
 * in that turn go together: an embedded database (PGlite) runs a statement synchronously, so no create could ever
 * arrive while it is "in flight" and every group would hold one animal. Every insert is still committed before it
 * is answered; if a group fails, its animals are inserted one by one, so each gets its own outcome. For the store's
 * own repository only: inserts inside a transaction must not be grouped.
 * @example const pets = withBatchedInserts(createPetRepository(db), db)
 */
export function withBatchedInserts(repository: PetRepository, db: Kysely<Database>, schema?: string): PetRepository {
  let queue: Waiter[] = [];
  let running = false;

  async function drain() {
    running = true;
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const group = queue.slice(0, MAX_BATCH);
      queue = queue.slice(group.length);
      try {
        const pets = group.length === 1 ? [await repository.insert(group[0]!.pet)] : await insertMany(db, schema, group.map((w) => w.pet));
        group.forEach((waiter, i) => waiter.resolve(pets[i]!));
      } catch (error) {
        if (group.length === 1) group[0]!.reject(error);
        else for (const waiter of group) await repository.insert(waiter.pet).then(waiter.resolve, waiter.reject);
      }
    }
    running = false;
  }

  return {
    ...repository,
    insert(pet) {
      return new Promise<Pet>((resolve, reject) => {
        queue.push({ pet, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
