import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';
import { groupedStatements } from './grouped-statements.js';
import { toStored, type ExpectedVersion, type PetChanges, type PetRepository, type StoredRow, type StoredPet } from './pet-repository.js';
import { tableIn } from './schema.js';

interface Update {
  id: number;
  changes: PetChanges;
  expected?: ExpectedVersion | undefined;
}

type Delete = Omit<Update, 'changes'>;

/** A change's condition as a grouped statement reads it: null for none (or `*`), else a bigint array literal. */
const versionsOf = (expected: ExpectedVersion | undefined) => (expected === undefined || expected === '*' ? null : `{${expected.join(',')}}`);

/** Each change's row, or undefined where its statement changed nothing, in the order given. */
function inOrder(rows: readonly (StoredRow & { position: number | string })[], count: number): (StoredPet | undefined)[] {
  const results = new Array<StoredPet | undefined>(count).fill(undefined);
  for (const row of rows) results[Number(row.position) - 1] = toStored(row);
  return results;
}

/**
 * Many changes of distinct animals in one statement, each with its own condition, as `update` makes one: the fields
 * given (the others kept), the version raised, only at an expected version, and a new status only with no order
 * placed.
 */
async function updateMany(db: Kysely<Database>, schema: string | undefined, updates: readonly Update[]) {
  const { rows } = await sql<StoredRow & { position: string | number }>`
    update ${tableIn(schema, 'pets')} as p
    set name = coalesce(c.name, p.name), category_id = coalesce(c.category_id, p.category_id),
      status = coalesce(c.status, p.status), version = p.version + 1
    from unnest(${updates.map((u) => u.id)}::bigint[], ${updates.map((u) => u.changes.name ?? null)}::text[],
        ${updates.map((u) => u.changes.categoryId ?? null)}::bigint[], ${updates.map((u) => u.changes.status ?? null)}::text[],
        ${updates.map((u) => versionsOf(u.expected))}::text[])
      with ordinality as c(id, name, category_id, status, expected, position)
    where p.id = c.id and (c.expected is null or p.version = any(c.expected::bigint[])) and (c.status is null or not p.on_order)
    returning c.position, p.id, p.name, p.category_id, p.status, p.version, p.on_order`.execute(db);
  return inOrder(rows, updates.length);
}

/** Many deletes of distinct animals in one statement, each with its own condition, as `delete` makes one. */
async function deleteMany(db: Kysely<Database>, schema: string | undefined, deletes: readonly Delete[]) {
  const { rows } = await sql<StoredRow & { position: string | number }>`
    delete from ${tableIn(schema, 'pets')} as p
    using unnest(${deletes.map((d) => d.id)}::bigint[], ${deletes.map((d) => versionsOf(d.expected))}::text[])
      with ordinality as c(id, expected, position)
    where p.id = c.id and not p.on_order and (c.expected is null or p.version = any(c.expected::bigint[]))
    returning c.position, p.id, p.name, p.category_id, p.status, p.version, p.on_order`.execute(db);
  return inOrder(rows, deletes.length);
}

/**
 * The repository with its changes and deletes grouped ({@link groupedStatements}): those of an event-loop turn, or
 * made while a group's statement is under way, go as one statement and one commit, each with its own condition
 * (`If-Match`, no order placed) and its own answer. Two changes of one animal never share a statement: the later
 * goes in the next group, after the first is made, as if each were alone. For the store's own repository only:
 * changes inside a transaction must not be grouped.
 * @example const pets = withGroupedChanges(createPetRepository(db), db)
 */
export function withGroupedChanges(repository: PetRepository, db: Kysely<Database>, schema?: string): PetRepository {
  const update = groupedStatements<Update, StoredPet | undefined>({
    many: (updates) => updateMany(db, schema, updates),
    one: ({ id, changes, expected }) => repository.update(id, changes, expected),
    keyOf: (u) => u.id,
  });
  const remove = groupedStatements<Delete, StoredPet | undefined>({
    many: (deletes) => deleteMany(db, schema, deletes),
    one: ({ id, expected }) => repository.delete(id, expected),
    keyOf: (d) => d.id,
  });
  return {
    ...repository,
    update: (id, changes, expected) => update({ id, changes, expected }),
    delete: (id, expected) => remove({ id, expected }),
  };
}
