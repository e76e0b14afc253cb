import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpInput } from './http-input.js';

describe('reading an operation input from query and path strings', () => {
  it('converts the integers the schema declares, passes the rest on as sent and leaves unknown names out', () => {
    const read = httpInput(operations.listPets.input);
    expect(read({ limit: '5', status: 'sold', cursor: '12', utm: 'x' })).toEqual({ limit: 5, status: 'sold', cursor: '12' });
    expect(read({ limit: '5.5' })).toEqual({ limit: '5.5' });
    expect(httpInput(operations.getPet.input)({ petId: '7' })).toEqual({ petId: 7 });
  });

  it('reads the fields of a named schema (a meta id), whose JSON Schema is a $ref, and of fields with ids', () => {
    const id = z.int().min(1).meta({ id: 'HttpInputTestId' });
    const named = z.strictObject({ petId: id, note: z.string() }).meta({ id: 'HttpInputTestChange' });
    expect(z.toJSONSchema(named)).toHaveProperty('$ref');
    expect(httpInput(named)({ petId: '5', note: '7', other: '1' })).toEqual({ petId: 5, note: '7' });
  });
});
