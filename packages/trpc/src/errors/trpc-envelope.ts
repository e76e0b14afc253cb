import type { ErrorBody, PetStoreError } from '@petstore/core';
import { errorCodes } from '@petstore/core';
import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

/** What a tRPC client reads in `error.data`: the SPEC Error body at `error`, never a stack trace. */
export interface PetStoreErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  path?: string;
  error: ErrorBody;
}

/** The error shape of one tRPC call: JSON-RPC code and message on top, the Error body in `data.error`. */
export interface TrpcErrorShape {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: PetStoreErrorData;
}

/**
 * The tRPC error shape of a PetStoreError: the one rendering of errors under `/trpc`, used by the codec and by
 * the router's `errorFormatter` alike.
 * @example trpcErrorShape(new PetStoreError('not_found'), 'pets.get').data.httpStatus // 404
 */
export function trpcErrorShape(error: PetStoreError, path?: string): TrpcErrorShape {
  const body = error.toBody();
  const code = errorCodes[body.code].trpc;
  const data: PetStoreErrorData = { code, httpStatus: body.status, error: body };
  if (path !== undefined) data.path = path;
  return { message: body.message, code: TRPC_ERROR_CODES_BY_KEY[code], data };
}
