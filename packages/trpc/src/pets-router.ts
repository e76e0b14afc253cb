import { operationProcedure } from './operation-procedure.js';
import { reply } from './reply.js';
import { router } from './trpc.js';

/**
 * The `pets` procedures, one per core operation: `list` (listPets), `create` (createPet), `get` (getPet).
 * @example const pets = await client.pets.list.query({ limit: 5 })
 */
export const petsRouter = router({
  list: operationProcedure('listPets').query(async ({ ctx, input, path }) =>
    reply(ctx, await ctx.store.listPets(input, ctx.call), { path, input })
  ),
  create: operationProcedure('createPet').mutation(async ({ ctx, input }) =>
    reply(ctx, await ctx.store.createPet(input, ctx.call))
  ),
  get: operationProcedure('getPet').query(async ({ ctx, input }) =>
    reply(ctx, await ctx.store.getPet(input, ctx.call))
  ),
});
