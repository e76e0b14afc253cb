import { initTRPC } from '@trpc/server';
import type { Context } from './context.js';
import { formatError } from './errors/error-formatter.js';
import { toTrpcError } from './errors/error-mapping.js';
import type { ProcedureMeta } from './procedure-meta.js';

// Streamed batches (httpBatchStreamLink) are JSON lines, labelled as such rather than as one JSON body.
const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({ errorFormatter: formatError, isDev: false, jsonl: { contentType: 'application/jsonl' } });

/**
 * Builds a router of this API's context, meta and error shape.
 * @example export const petsRouter = router({ list: operationProcedure('pets.list').query(…) })
 */
export const router = t.router;

/**
 * Every procedure's base: whatever a procedure throws leaves it as a TRPCError mapped through the core table.
 * @example procedure.meta(procedureMeta(op)).input(op.input)
 */
export const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  return result.ok ? result : { ...result, error: toTrpcError(result.error) };
});
