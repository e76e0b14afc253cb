import { sql, type Kysely } from 'kysely';
import type { Pet, PetStatus } from '../domain/pet-schemas.js';
import type { Database } from './database.js';
import { tableIn } from './schema.js';

/** An animal as stored: the record and its version, which every change raises (a new animal's is 1). */
export interface StoredPet {
  pet: Pet;
  version: number;
  /** Whether an order of the pet is `placed`: its status then changes only through the order. */
  onOrder: boolean;
}

/** The version a conditional change requires: any (`*`, the animal exists), or one of these. Absent: no condition. */
export type ExpectedVersion = '*' | readonly number[];

/** What a change makes of an animal: one or more of its fields. */
export type PetChanges = Partial<Omit<Pet, 'id'>>;

/** Reads and writes animals. */
export interface PetRepository {
  /** Adds an animal, at version 1. */
  insert(pet: Omit<Pet, 'id'>): Promise<Pet>;
  findById(id: number): Promise<StoredPet | undefined>;
  /** Up to `limit` animals with an id above `afterId`, in ascending id order. */
  list(query: { status?: PetStatus | undefined; afterId: number; limit: number }): Promise<Pet[]>;
  /**
   * Changes an animal and raises its version in one statement, only if its version is `expected` (when given), and
   * a change of its status only while no order of it is placed: of concurrent changes expecting one version, exactly
   * one is made. Undefined when nothing was changed.
   */
  update(id: number, changes: PetChanges, expected?: ExpectedVersion): Promise<StoredPet | undefined>;
  /**
   * Deletes an animal in one statement, only if its version is `expected` (when given) and no order of it is placed;
   * answers it as it was.
   */
  delete(id: number, expected?: ExpectedVersion): Promise<StoredPet | undefined>;
}

/** The SQL verb of a statement, as the database semantic conventions name it (`db.operation.name`). */
export type QueryVerb = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * The verb of each method's statement, for its client span (`SELECT pets`): a new method of {@link PetRepository}
 * names its verb here, in this file, or the type check fails; the tracing wrapper follows.
 * @example petQueryVerbs.findById // 'SELECT'
 */
export const petQueryVerbs: { readonly [Method in keyof PetRepository]: QueryVerb } = Object.freeze({
  insert: 'INSERT',
  findById: 'SELECT',
  list: 'SELECT',
  update: 'UPDATE',
  delete: 'DELETE',
});

const columns = ['id', 'name', 'category_id', 'status'] as const;
const versioned = [...columns, 'version', 'on_order'] as const;

/** A row of `pets` as the drivers return it (PostgreSQL's int8 may come back as a string). */
export interface PetRow {
  id: number | string;
  name: string;
  category_id: number | string;
  status: string;
}

/** The animal a row holds. */
export function toPet(row: PetRow): Pet {
  return { id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status as PetStatus };
}

/** A row of `pets` with its version and order flag. */
export type StoredRow = PetRow & { version: number | string; on_order: boolean };

/** The animal, its version and its order flag, as a row holds them. */
export const toStored = (row: StoredRow): StoredPet => ({
  pet: toPet(row),
  version: Number(row.version),
  onOrder: row.on_order,
});

/** The columns a change sets: the fields given, and the version raised. */
function changedColumns(changes: PetChanges) {
  const set: { name?: string; category_id?: number; status?: string } = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.categoryId !== undefined) set.category_id = changes.categoryId;
  if (changes.status !== undefined) set.status = changes.status;
  return set;
}

/**
 * The pets table through kysely. The insert, the one query of every create, is a `sql` template: kysely's builder
 * took about 4 µs to build and compile it each time (0.5 µs as a template), a tenth of the service's own work on a
 * create.
 * `db` is the store's view (see `storeDatabase`), `schema` the one its raw statements name.
 * @example const pets = createPetRepository(db); await pets.findById(1)
 */
export function createPetRepository(db: Kysely<Database>, schema?: string): PetRepository {
  const pets = tableIn(schema, 'pets');
  return {
    async insert(pet) {
      const { rows } = await sql<PetRow>`
        insert into ${pets} (name, category_id, status) values (${pet.name}, ${pet.categoryId}, ${pet.status})
        returning id, name, category_id, status`.execute(db);
      return toPet(rows[0]!);
    },
    async findById(id) {
      const row = await db.selectFrom('pets').select(versioned).where('id', '=', id).executeTakeFirst();
      return row && toStored(row);
    },
    async update(id, changes, expected) {
      let query = db
        .updateTable('pets')
        .set({ ...changedColumns(changes), version: sql<number>`version + 1` })
        .where('id', '=', id);
      if (expected !== undefined && expected !== '*') query = query.where('version', 'in', [...expected]);
      if (changes.status !== undefined) query = query.where('on_order', '=', false);
      const row = await query.returning(versioned).executeTakeFirst();
      return row && toStored(row);
    },
    async delete(id, expected) {
      let query = db.deleteFrom('pets').where('id', '=', id).where('on_order', '=', false);
      if (expected !== undefined && expected !== '*') query = query.where('version', 'in', [...expected]);
      const row = await query.returning(versioned).executeTakeFirst();
      return row && toStored(row);
    },
    async list({ status, afterId, limit }) {
      let query = db.selectFrom('pets').select(columns).where('id', '>', afterId);
      if (status) query = query.where('status', '=', status);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map(toPet);
    },
  };
}
