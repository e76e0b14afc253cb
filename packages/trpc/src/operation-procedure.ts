import { operations } from '@petstore/core';
import type { Context } from './context.js';
import { petStoreErrorOf } from './errors/error-mapping.js';
import { nextPageUrl, procedures } from './procedures.js';
import { procedure } from './trpc.js';

/** The core operation behind each procedure, as types (the procedure table holds the same at run time). */
interface OperationOf {
  'pets.list': 'listPets';
  'pets.page': 'listPets';
  'pets.create': 'createPet';
  'pets.get': 'getPet';
}

/** Records what an answer carries besides its body, for the response's headers. */
function record(ctx: Context, meta: Context['response']['meta'], next?: string) {
  Object.assign(ctx.response.meta, meta);
  ctx.request.keyId = meta.keyId;
  if (next !== undefined) ctx.response.nextUrl = next;
}

/**
 * The procedure at a path of the procedure table: it runs the core's one entry, which admits the request (401, 429,
 * 410) before it reads and validates the raw input; `.input()` then only types the procedure. The resolver returns
 * `ctx.result`.
 * @example operationProcedure('pets.get').output(Pet).query(({ ctx }) => ctx.result as Pet)
 */
export function operationProcedure<Path extends keyof OperationOf>(path: Path) {
  const definition = procedures[path]!;
  type Op = (typeof operations)[OperationOf[Path]];
  const op = operations[definition.operationId] as Op;
  return procedure
    .use(async ({ ctx, next, getRawInput }) => {
      let input: unknown;
      const readInput = () =>
        getRawInput().then(
          (raw) => (input = raw),
          (error: unknown) => Promise.reject(petStoreErrorOf(error)),
        );
      const outcome = await ctx.store.call(definition.operationId, readInput, ctx.request).catch((error: unknown) => {
        record(ctx, petStoreErrorOf(error).meta);
        throw error;
      });
      const cursor = definition.linksNextPage ? outcome.meta.nextCursor : undefined;
      record(ctx, outcome.meta, cursor === undefined ? undefined : nextPageUrl(ctx.trpcUrl, path, input, cursor));
      return next({ ctx: { result: definition.result(outcome) } });
    })
    .input(op.input as Op['input']);
}
