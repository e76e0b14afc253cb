import { initTRPC } from '@trpc/server';
import type { Context } from './context.js';
import { formatError } from './errors/error-formatter.js';

// Streamed batches (httpBatchStreamLink) are JSON lines, labelled as such rather than as one JSON body.
const t = initTRPC
  .context<Context>()
  .create({ errorFormatter: formatError, isDev: false, jsonl: { contentType: 'application/jsonl' } });

/**
 * Builds a router of this API's context and error shape.
 * @example export const appRouter = router({ pets: createPetsRouter(procedure, options) })
 */
export const router = t.router;

/** The base procedure of this API's own router. */
export const procedure = t.procedure;
