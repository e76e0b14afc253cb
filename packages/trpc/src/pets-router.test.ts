import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { petsRouter } from './pets-router.js';

describe('the pets router', () => {
  it('has one procedure per operation, named and typed by its definition', () => {
    const procedures = petsRouter._def.procedures as Record<string, { _def: { type: string } }>;
    expect(Object.keys(procedures).sort()).toEqual(
      [...Object.values(operations).map((op) => op.procedure), 'page'].sort()
    );
    for (const op of Object.values(operations)) {
      const procedure = procedures[op.procedure]!;
      expect(procedure._def.type).toBe(op.method === 'GET' ? 'query' : 'mutation');
    }
  });
});
