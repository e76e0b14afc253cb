import { operations, type OperationId, type Outcome } from '@petstore/core';

/** One tRPC procedure as the tRPC codec and the router both serve it. */
export interface ProcedureDefinition {
  /** The core operation it runs. */
  readonly operationId: OperationId;
  readonly type: 'query' | 'mutation';
  /** The data of its result, from the core's outcome. */
  readonly result: (outcome: Outcome<unknown>) => unknown;
  /** Whether its responses link the next page (`Link: rel="next"`). */
  readonly linksNextPage: boolean;
}

const fromOperation = (operationId: OperationId): ProcedureDefinition => ({
  operationId,
  type: operations[operationId].writes ? 'mutation' : 'query',
  result: (outcome) => outcome.data,
  linksNextPage: 'cursor' in ((operations[operationId].input as { shape?: object }).shape ?? {}),
});

/** The same call answering its page with the next cursor in the body, for tRPC clients (they read no headers). */
const pageOf = (operationId: OperationId): ProcedureDefinition => ({
  ...fromOperation(operationId),
  result: (outcome) => ({ items: outcome.data, nextCursor: outcome.meta.nextCursor ?? null }),
  linksNextPage: false,
});

/**
 * Every procedure by its path: one per core operation, named by the operation's `procedure` (`pets.list`,
 * `pets.create`, `pets.get`), and one more for an operation that declares a `pageProcedure` (`pets.page`).
 * @example procedures['pets.get']?.operationId // 'getPet'
 */
export const procedures: Readonly<Record<string, ProcedureDefinition>> = Object.freeze(
  Object.fromEntries(
    (Object.keys(operations) as OperationId[]).flatMap((id) => {
      const { procedure, pageProcedure } = operations[id];
      const own: [string, ProcedureDefinition] = [`pets.${procedure}`, fromOperation(id)];
      return pageProcedure === undefined ? [own] : [own, [`pets.${pageProcedure}`, pageOf(id)] as const];
    }),
  ),
);

/**
 * The procedure at a path, if there is one (own properties only).
 * @example procedureAt('pets.list')?.type // 'query'
 */
export function procedureAt(path: string): ProcedureDefinition | undefined {
  return Object.hasOwn(procedures, path) ? procedures[path] : undefined;
}

/**
 * The absolute URL of the next page of a list procedure: its input with the cursor replaced, as `?input=`.
 * @example nextPageUrl('https://api.example.com/trpc', 'pets.list', { limit: 5 }, 'cDEuNQ')
 */
export function nextPageUrl(trpcUrl: string, path: string, input: unknown, cursor: string): string {
  const base = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
  return `${trpcUrl}/${path}?input=${encodeURIComponent(JSON.stringify({ ...base, cursor }))}`;
}
