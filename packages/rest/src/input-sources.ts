import type { OperationDefinition } from '@petstore/core';

/** Where REST reads an operation's input from. */
export interface InputSources {
  /** Input fields named by the path's `{placeholders}`. */
  readonly path: readonly string[];
  /** Whether the other fields come from a JSON body (POST, PUT, PATCH) rather than the query string (GET, DELETE). */
  readonly body: boolean;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The one rule of where an operation's input travels over REST: path placeholders first, then the query string for
 * GET and DELETE, else the JSON body.
 * @example inputSources(operations.getPet) // { path: ['petId'], body: false }
 */
export function inputSources(op: Pick<OperationDefinition, 'method' | 'path'>): InputSources {
  return {
    path: Array.from(op.path.matchAll(PLACEHOLDER), (match) => match[1]!),
    body: op.method !== 'GET' && op.method !== 'DELETE',
  };
}
