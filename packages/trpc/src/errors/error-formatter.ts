import type { TRPCDefaultErrorShape, TRPCError } from '@trpc/server';
import { trpcErrorShape } from './trpc-envelope.js';
import { petStoreErrorOf } from './error-mapping.js';

export type { PetStoreErrorData } from './trpc-envelope.js';

/**
 * The router's `errorFormatter`: the edge's one tRPC error shape (the Error body at `data.error`, its message on
 * top, its status as `httpStatus`).
 * @example initTRPC.create({ errorFormatter: formatError })
 */
export function formatError({ shape, error }: { shape: TRPCDefaultErrorShape; error: TRPCError }) {
  return trpcErrorShape(petStoreErrorOf(error), shape.data.path);
}
