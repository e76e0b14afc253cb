import { operations, PetStoreError, type OperationId } from '@petstore/core';
import { openApiMeta } from './openapi/openapi-meta.js';
import { procedure } from './trpc.js';

async function readRawInput(getRawInput: () => Promise<unknown>): Promise<void> {
  try {
    await getRawInput();
  } catch (error) {
    throw error instanceof SyntaxError ? new PetStoreError('malformed_json', undefined, { cause: error }) : error;
  }
}

/**
 * The procedure of one core operation: its meta and input, admitted (401, 429, 410) before the input is read or
 * parsed. The resolver gets `ctx.call` to pass to the store. `openapi: false` keeps a tRPC-only procedure out of
 * the OpenAPI document.
 * @example operationProcedure('getPet').query(({ ctx, input }) => ctx.store.getPet(input, ctx.call))
 */
export function operationProcedure<Id extends OperationId>(id: Id, options: { openapi?: boolean } = {}) {
  type Op = (typeof operations)[Id];
  const op: Op = operations[id];
  return procedure
    .meta(options.openapi === false ? {} : openApiMeta(op))
    .use(async ({ ctx, next, getRawInput }) => {
      const admission = await ctx.store.admit(id, ctx.caller);
      Object.assign(ctx.response.meta, admission.meta);
      await readRawInput(getRawInput);
      return next({ ctx: { call: { admission, idempotencyKey: ctx.caller.idempotencyKey } } });
    })
    .input(op.input as Op['input']);
}
