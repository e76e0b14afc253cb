import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { appRouter, procedurePaths } from './app-router.js';

describe('the pets procedures of the service\'s own router', () => {
  it('has one procedure per operation, named by its definition, a mutation exactly when it writes, and page', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    expect(Object.keys(procedures).sort()).toEqual(
      [...Object.values(operations).map((op) => `pets.${op.procedure}`), 'pets.page'].sort(),
    );
    for (const op of Object.values(operations)) {
      expect(procedures[`pets.${op.procedure}`]!._def.type).toBe(op.writes ? 'mutation' : 'query');
    }
    expect(procedures['pets.page']!._def.type).toBe('query');
    expect([...procedurePaths].sort()).toEqual(Object.keys(procedures).sort());
  });
});
