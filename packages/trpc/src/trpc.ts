import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context.js';
import { formatError } from './errors/error-formatter.js';
import { toTrpcError } from './errors/error-mapping.js';

const t = initTRPC.context<Context>().meta<OpenApiMeta>().create({ errorFormatter: formatError, isDev: false });

/**
 * Builds a router of this API's context, meta and error shape.
 * @example export const petsRouter = router({ list: operationProcedure('listPets').query(…) })
 */
export const router = t.router;

/**
 * Every procedure's base: whatever a procedure throws leaves it as a TRPCError mapped through the core table.
 * @example procedure.meta(openApiMeta(op)).input(op.input)
 */
export const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  return result.ok ? result : { ...result, error: toTrpcError(result.error) };
});
