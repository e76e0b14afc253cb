import { petsRouter } from './pets-router.js';
import { router } from './trpc.js';

/**
 * The whole tRPC API: `pets.list`, `pets.page`, `pets.create`, `pets.get`.
 * @example createTRPCClient<AppRouter>({ links: [httpLink({ url: 'http://localhost:3000/trpc' })] })
 */
export const appRouter = router({ pets: petsRouter });

/**
 * The router's type, for typed clients.
 * @example const pets: inferRouterOutputs<AppRouter>['pets']['list'] = await client.pets.list.query({})
 */
export type AppRouter = typeof appRouter;

/**
 * The path of every procedure, e.g. `pets.list`.
 * @example procedurePaths.includes('pets.get') // true
 */
export const procedurePaths: readonly string[] = Object.freeze(Object.keys(appRouter._def.procedures));
