import { createPetsRouter, petsResponseMeta } from './create-pets-router.js';
import { procedure, router } from './trpc.js';

/** The pets procedures of the service's own tRPC API: the very procedures a host mounts in its own server. */
const pets = createPetsRouter(procedure, {
  store: (ctx) => ctx.store,
  principal: (ctx) => ctx.request,
  url: (ctx) => ctx.trpcUrl,
  batch: (ctx) => ctx.batch,
});

/**
 * The whole tRPC API: `pets.list`, `pets.page`, `pets.create`, `pets.get`.
 * @example createTRPCClient<AppRouter>({ links: [httpLink({ url: 'http://localhost:3000/trpc' })] })
 */
export const appRouter = router({ pets });

/** The headers of the pets calls of a request to {@link appRouter}, for the adapter's `responseMeta`. */
export const appResponseMeta = petsResponseMeta(pets);

/**
 * The router's type, for typed clients.
 * @example const pets: inferRouterOutputs<AppRouter>['pets']['list'] = await client.pets.list.query({})
 */
export type AppRouter = typeof appRouter;

/**
 * The path of every procedure, e.g. `pets.list`.
 * @example procedurePaths.includes('pets.get') // true
 */
export const procedurePaths: readonly string[] = Object.freeze(Object.keys(pets).map((name) => `pets.${name}`));
