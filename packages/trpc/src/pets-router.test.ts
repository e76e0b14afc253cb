import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { appRouter, procedurePaths } from './app-router.js';
import { procedures as codecProcedures } from './procedures.js';

describe('the pets procedures of the service\'s own router', () => {
  it('has one procedure per operation and per page procedure it declares, a mutation exactly when it writes', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    const names = Object.values(operations).flatMap((op) => [op.procedure, ...(op.pageProcedure ? [op.pageProcedure] : [])]);
    expect(Object.keys(procedures).sort()).toEqual(names.map((name) => `pets.${name}`).sort());
    for (const op of Object.values(operations)) {
      for (const name of [op.procedure, op.pageProcedure]) {
        if (name !== undefined) expect(procedures[`pets.${name}`]!._def.type, name).toBe(op.writes ? 'mutation' : 'query');
      }
    }
    expect([...procedurePaths].sort()).toEqual(Object.keys(procedures).sort());
    expect(Object.keys(codecProcedures).sort()).toEqual(Object.keys(procedures).sort());
  });

  it('serves pets.page as the listing with its next cursor in the body, declared by the operation it runs', () => {
    expect(operations.listPets.pageProcedure).toBe('page');
    expect(codecProcedures['pets.page']).toMatchObject({ operationId: 'listPets', type: 'query', linksNextPage: false });
    const outcome = { data: [], meta: { nextCursor: 'next' } };
    expect(codecProcedures['pets.page']!.result(outcome)).toEqual({ items: [], nextCursor: 'next' });
    expect(codecProcedures['pets.list']!.result(outcome)).toEqual([]);
  });
});
