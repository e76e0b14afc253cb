import { initTRPC } from '@trpc/server';
import type { Context } from './context.js';
import { formatError } from './errors/error-formatter.js';
import { toTrpcError } from './errors/error-mapping.js';

// Streamed batches (httpBatchStreamLink) are JSON lines, labelled as such rather than as one JSON body.
const t = initTRPC
  .context<Context>()
  .create({ errorFormatter: formatError, isDev: false, jsonl: { contentType: 'application/jsonl' } });

/**
 * Builds a router of this API's context and error shape.
 * @example export const petsRouter = router({ list: operationProcedure('pets.list').query(…) })
 */
export const router = t.router;

/**
 * Every procedure's base: whatever a procedure throws leaves it as a TRPCError mapped through the core table.
 * @example procedure.input(op.input).query(({ input }) => input)
 */
export const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  return result.ok ? result : { ...result, error: toTrpcError(result.error) };
});
