import type { AnyTRPCRouter } from '@trpc/server';

const METHOD_OF_TYPE: Record<string, string> = { query: 'GET', mutation: 'POST' };

/**
 * Whether every call of a request (`pets.list` or a batch `pets.list,pets.get`) names a procedure that takes its
 * method. A request that matches none is only metered, since no operation admits it.
 * @example matchesProcedure(appRouter, 'pets.nope', 'GET') // false
 */
export function matchesProcedure(router: AnyTRPCRouter, path: string, method: string | undefined): boolean {
  if (method === 'HEAD') return true;
  const procedures = router._def.procedures as Record<string, { _def: { type: string } }>;
  return path.split(',').every((name) => {
    const found = Object.hasOwn(procedures, name) ? procedures[name] : undefined;
    return found !== undefined && METHOD_OF_TYPE[found._def.type] === method;
  });
}
