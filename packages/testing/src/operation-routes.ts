import { operations, type OperationDefinition } from '@petstore/core';

/** A path of the REST API as the operations define it, with what a test expects of it. */
export interface OperationRoute {
  /** The path template, relative to the base address: `/pets/{petId}`. */
  readonly template: string;
  /** A path that matches it, each placeholder given `1`: `/pets/1`. */
  readonly path: string;
  /** The operations served on it, in registry order. */
  readonly operations: readonly OperationDefinition[];
  /** Its `Allow` header and preflight methods: its methods, with HEAD wherever GET, sorted. */
  readonly allow: string;
  /** The methods of HTTP's usual five it does not serve, each a 405 with {@link allow}. */
  readonly notAllowed: readonly string[];
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Every path of the REST API, derived from the operations registry, so that a new operation is covered by the tests
 * that loop over them without a line of their own.
 * @example for (const route of operationRoutes()) expect(allowOf(route.path)).toBe(route.allow)
 */
export function operationRoutes(): OperationRoute[] {
  const byPath = new Map<string, OperationDefinition[]>();
  for (const op of Object.values(operations) as OperationDefinition[]) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  return [...byPath].map(([template, ops]) => {
    const methods = new Set<string>(ops.map((op) => op.method));
    const allowed = methods.has('GET') ? [...methods, 'HEAD'] : [...methods];
    return {
      template,
      path: template.replace(/\{[^/{}]+\}/g, '1'),
      operations: ops,
      allow: allowed.sort().join(', '),
      notAllowed: METHODS.filter((method) => !methods.has(method)),
    };
  });
}
