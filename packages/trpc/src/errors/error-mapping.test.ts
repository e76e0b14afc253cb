import { operations, PetStoreError, validate } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { formatError } from './error-formatter.js';
import { petStoreErrorOf, toTrpcError } from './error-mapping.js';

/** What tRPC's input middleware throws when a zod input fails to parse. */
const inputFailure = (schema: (typeof operations)[keyof typeof operations]['input'], value: unknown) =>
  new TRPCError({ code: 'BAD_REQUEST', cause: schema.safeParse(value).error });

const thrownBy = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as PetStoreError;
  }
  throw new Error('expected a throw');
};

describe('toTrpcError', () => {
  it('gives a PetStoreError the tRPC code of the core table and keeps it as the cause', () => {
    const gone = new PetStoreError('gone');
    const error = toTrpcError(gone);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.cause).toBe(gone);
    expect(error.message).toBe(gone.message);
  });

  it('finds a PetStoreError wrapped by tRPC as an internal error', () => {
    const limited = new PetStoreError('rate_limited');
    const error = toTrpcError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: limited }));
    expect(error.code).toBe('TOO_MANY_REQUESTS');
    expect(error.cause).toBe(limited);
  });

  it('returns an error that is already mapped as it is', () => {
    const mapped = toTrpcError(new PetStoreError('not_found'));
    expect(toTrpcError(mapped)).toBe(mapped);
  });
});

describe('petStoreErrorOf', () => {
  it('lists the same details for a tRPC input failure as the core validate does', () => {
    const input = { name: '', categoryId: '7', id: 1, extra: true };
    const expected = thrownBy(() => validate(operations.createPet.input, input));
    const actual = petStoreErrorOf(inputFailure(operations.createPet.input, input));
    expect(actual.toBody()).toEqual(expected.toBody());
    expect(actual.details?.map((d) => d.path).sort()).toEqual(['categoryId', 'extra', 'id', 'name']);
  });

  it('answers a tRPC parse failure and a JSON syntax error as malformed_json', () => {
    expect(petStoreErrorOf(new TRPCError({ code: 'PARSE_ERROR' })).code).toBe('malformed_json');
    const syntax = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new SyntaxError('Unexpected end of JSON') });
    expect(petStoreErrorOf(syntax).code).toBe('malformed_json');
  });

  it('answers tRPC routing failures with the matching core codes', () => {
    expect(
      petStoreErrorOf(new TRPCError({ code: 'NOT_FOUND', message: 'No procedure found on path "x"' })).toBody()
    ).toEqual(new PetStoreError('not_found').toBody());
    expect(petStoreErrorOf(new TRPCError({ code: 'METHOD_NOT_SUPPORTED' })).code).toBe('method_not_allowed');
    expect(petStoreErrorOf(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' })).code).toBe('payload_too_large');
    expect(petStoreErrorOf(new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE' })).code).toBe('unsupported_media_type');
  });

  it('turns anything unexpected into internal_error revealing nothing', () => {
    const secret = new Error('password=hunter2 at /srv/app/db.ts:12');
    for (const error of [secret, new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: secret }), 'a string']) {
      expect(petStoreErrorOf(error).toBody()).toEqual({
        code: 'internal_error',
        status: 500,
        message: 'An internal error occurred.',
      });
    }
  });
});

describe('formatError', () => {
  it('puts the Error body at data.error, its message on top and its status as httpStatus, without a stack', () => {
    const error = toTrpcError(new Error('secret'));
    error.stack = 'Error: secret\n    at somewhere.ts:1';
    const shape = formatError({
      error,
      shape: {
        code: -32603,
        message: 'secret',
        data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, path: 'pets.list', stack: error.stack },
      },
    });
    expect(shape).toEqual({
      code: -32603,
      message: 'An internal error occurred.',
      data: {
        code: 'INTERNAL_SERVER_ERROR',
        httpStatus: 500,
        path: 'pets.list',
        error: { code: 'internal_error', status: 500, message: 'An internal error occurred.' },
      },
    });
  });

  it('answers gone with status 410 although its tRPC code is NOT_FOUND', () => {
    const shape = formatError({
      error: toTrpcError(new PetStoreError('gone')),
      shape: { code: -32004, message: 'x', data: { code: 'NOT_FOUND', httpStatus: 404 } },
    });
    expect(shape.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 410, error: { code: 'gone', status: 410 } });
  });
});
