import { operations, Pets, type Pet } from '@petstore/core';
import { z } from 'zod';
import { operationProcedure } from './operation-procedure.js';
import { router } from './trpc.js';

/** A page of `pets.page`: the animals and the cursor of the next page (null on the last). */
const PetsPage = z.strictObject({ items: Pets, nextCursor: z.string().nullable() });

/**
 * The `pets` procedures, one per core operation: `list` (listPets), `create` (createPet), `get` (getPet); and
 * `page`, listPets with its next cursor in the body for tRPC clients.
 * @example const pets = await client.pets.list.query({ limit: 5 })
 */
export const petsRouter = router({
  // The page is frozen and shared; tRPC only reads it (output validation builds its own copy).
  list: operationProcedure('pets.list')
    .output(operations.listPets.output)
    .query(({ ctx }) => ctx.result as Pet[]),
  /** `listPets` for tRPC clients, which cannot read headers: the page with its next cursor in the body. */
  page: operationProcedure('pets.page')
    .output(PetsPage)
    .query(({ ctx }) => ctx.result as z.infer<typeof PetsPage>),
  create: operationProcedure('pets.create')
    .output(operations.createPet.output)
    .mutation(({ ctx }) => ctx.result as Pet),
  get: operationProcedure('pets.get')
    .output(operations.getPet.output)
    .query(({ ctx }) => ctx.result as Pet),
});
