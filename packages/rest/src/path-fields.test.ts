import { PetStatus, PetStoreError } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bodyWithPath } from './path-fields.js';

const input = z.strictObject({ petId: z.int().min(1), status: PetStatus });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PetStoreError);
    return (error as PetStoreError).toBody();
  }
  return expect.unreachable('expected a 400');
};

describe('a body read with path fields', () => {
  it('takes the body fields and the path fields together', () => {
    expect(bodyWithPath(input, ['petId'], { petId: 5 }, { status: 'sold' })).toEqual({ status: 'sold', petId: 5 });
    expect(bodyWithPath(input, ['petId'], { petId: 5 }, undefined)).toEqual({ petId: 5 });
  });

  it('passes a body that is not an object on as it is, for the core to refuse', () => {
    expect(bodyWithPath(input, ['petId'], { petId: 5 }, [1])).toEqual([1]);
    expect(bodyWithPath(input, ['petId'], { petId: 5 }, null)).toBeNull();
  });

  it('refuses a body that repeats a path field, with the same value or another, naming it', () => {
    for (const petId of [99, 5]) {
      expect(refusal(() => bodyWithPath(input, ['petId'], { petId: 5 }, { petId, status: 'sold' }))).toEqual({
        code: 'invalid_request',
        status: 400,
        message: 'Invalid value for: petId.',
        details: [{ path: 'petId', message: 'is read from the path; the body must not repeat it' }],
      });
    }
  });

  it('lists every other failing field with the repeated one', () => {
    const body = refusal(() => bodyWithPath(input, ['petId'], { petId: 5 }, { petId: 5, status: 'lost', extra: 1 }));
    expect(body.details?.map((detail) => detail.path)).toEqual(['petId', 'status', 'extra']);
  });
});
