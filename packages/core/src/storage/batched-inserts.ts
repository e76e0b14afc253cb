import { sql, type Kysely } from 'kysely';
import type { Pet } from '../domain/pet-schemas.js';
import type { Database } from './database.js';
import { groupedStatements } from './grouped-statements.js';
import { toPet, type PetRepository, type PetRow } from './pet-repository.js';
import { tableIn } from './schema.js';

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
 * The repository with its inserts grouped ({@link groupedStatements}): the creates of an event-loop turn, or made
 * while a group's statement is under way, go as one statement and one commit (up to 100), each animal with its own
 * id and outcome. For the store's own repository only: inserts inside a transaction must not be grouped.
 * @example const pets = withBatchedInserts(createPetRepository(db), db)
 */
export function withBatchedInserts(repository: PetRepository, db: Kysely<Database>, schema?: string): PetRepository {
  const insert = groupedStatements({ many: (pets: readonly Omit<Pet, 'id'>[]) => insertMany(db, schema, pets), one: (pet) => repository.insert(pet) });
  return { ...repository, insert };
}
