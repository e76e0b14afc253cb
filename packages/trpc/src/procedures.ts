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

/**
 * Every procedure by its path: one per core operation (`pets.list`, `pets.create`, `pets.get`, named by the
 * operation's `procedure`), and `pets.page`, `listPets` with its next cursor in the body for clients that cannot
 * read headers.
 * @example procedures['pets.get']?.operationId // 'getPet'
 */
export const procedures: Readonly<Record<string, ProcedureDefinition>> = Object.freeze({
  ...Object.fromEntries(
    (Object.keys(operations) as OperationId[]).map((id) => [`pets.${operations[id].procedure}`, fromOperation(id)]),
  ),
  'pets.page': {
    operationId: 'listPets',
    type: 'query',
    result: (outcome) => ({ items: outcome.data, nextCursor: outcome.meta.nextCursor ?? null }),
    linksNextPage: false,
  },
});

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
