import type { TRPC_ERROR_CODE_KEY, TRPCDefaultErrorShape, TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { errorCodes, type ErrorBody } from '@petstore/core';
import { petStoreErrorOf } from './error-mapping.js';

/** What a tRPC client reads in `error.data`: the SPEC Error body at `error`, never a stack trace. */
export interface PetStoreErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  path?: string;
  error: ErrorBody;
}

/**
 * The router's `errorFormatter`: the Error body at `data.error`, its message on top, its status as `httpStatus`.
 * @example initTRPC.create({ errorFormatter: formatError })
 */
export function formatError({ shape, error }: { shape: TRPCDefaultErrorShape; error: TRPCError }) {
  const body = petStoreErrorOf(error).toBody();
  const code = errorCodes[body.code].trpc;
  const data: PetStoreErrorData = { code, httpStatus: body.status, error: body };
  if (shape.data.path !== undefined) data.path = shape.data.path;
  return { code: TRPC_ERROR_CODES_BY_KEY[code], message: body.message, data };
}
