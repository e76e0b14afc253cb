import { operations, Pets, type Pet } from '@petstore/core';
import { z } from 'zod';
import { operationProcedure } from './operation-procedure.js';
import { reply } from './reply.js';
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
  list: operationProcedure('listPets')
    .output(operations.listPets.output)
    .query(
      async ({ ctx, input, path }) => reply(ctx, await ctx.store.listPets(input, ctx.call), { path, input }) as Pet[],
    ),
  /** `listPets` for tRPC clients, which cannot read headers: the page with its next cursor in the body. */
  page: operationProcedure('listPets', { openapi: false })
    .output(PetsPage)
    .query(async ({ ctx, input }) => {
      const outcome = await ctx.store.listPets(input, ctx.call);
      reply(ctx, outcome);
      return { items: outcome.data as Pet[], nextCursor: outcome.meta.nextCursor ?? null };
    }),
  create: operationProcedure('createPet')
    .output(operations.createPet.output)
    .mutation(async ({ ctx, input }) => reply(ctx, await ctx.store.createPet(input, ctx.call))),
  get: operationProcedure('getPet')
    .output(operations.getPet.output)
    .query(async ({ ctx, input }) => reply(ctx, await ctx.store.getPet(input, ctx.call))),
});
