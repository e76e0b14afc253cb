import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { listETag } from '../domain/etag.js';
import { ListPetsInput, Pets, type Pet } from '../domain/pet-schemas.js';
import { defineOperation } from './operation.js';

/** SPEC 4.1: a page of animals in ascending id order, optionally by status; `meta.nextCursor` when more exist. */
export const listPets = defineOperation({
  operationId: 'listPets',
  procedure: 'list',
  method: 'GET',
  path: '/pets',
  summary: 'List animals',
  description:
    'Returns a page of animals in ascending `id` order, optionally filtered by status. When more exist, the `Link` header carries the next page (`rel="next"`).',
  tags: ['animals'],
  input: ListPetsInput,
  output: Pets,
  successStatus: 200,
  writes: false,
  conditional: true,
  pageProcedure: 'page',
  async run(input, { pets, meta, cached }) {
    const afterId = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
    // The page is frozen and shared by every request that reads it while it is cached.
    const page = await cached(`list:${input.status ?? ''}:${afterId}:${input.limit}`, async () => {
      const rows = await pets.list({ status: input.status, afterId, limit: input.limit + 1 });
      const more = rows.length > input.limit;
      if (more) rows.length = input.limit;
      for (const row of rows) Object.freeze(row);
      const nextCursor = more ? encodeCursor(rows[rows.length - 1]!.id) : undefined;
      // Worked out once per page read, and served with it while it is cached.
      return Object.freeze({ rows: Object.freeze(rows), nextCursor, etag: listETag(JSON.stringify(rows), nextCursor) });
    });
    if (page.nextCursor !== undefined) meta.nextCursor = page.nextCursor;
    meta.etag = page.etag;
    return page.rows as Pet[];
  },
});
