import { operations as registry } from '@petstore/core';

/** What the client needs of an operation at run time: where it lives and how it behaves. */
export interface Route {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the base address, with `{param}` placeholders named after input fields. */
  readonly path: string;
  readonly successStatus: number;
  /** Whether it changes data: then every call carries an `Idempotency-Key`. */
  readonly writes: boolean;
  readonly deprecation?: { readonly since: Date; readonly sunset: Date; readonly successor: string } | undefined;
  readonly stability?: 'experimental' | 'beta' | undefined;
  /**
   * Calls a minute allowed by a limit of the operation's own (`getUsage`): the service counts it against no window
   * of the plan, so the client's gate never holds it back, and its own 429 closes the gate for no other call.
   */
  readonly ownLimitPerMinute?: number | undefined;
}

interface Defined {
  readonly input: unknown;
  readonly output: unknown;
}

/**
 * The routes of the core's operations, each with its schemas' types (`~types`, only in the types: absent at run
 * time). The published build replaces the core's registry with these fields alone (scripts/build.mjs), so no server
 * code ships; the types keep the zod schemas' own types.
 */
const describe = <R extends { readonly [K in keyof R]: Route & Defined }>(operations: R) =>
  operations as { readonly [K in keyof R]: Route & { readonly '~types'?: { input: R[K]['input']; output: R[K]['output'] } } };

/**
 * Every operation of the service, by operationId.
 * @example operations.createPet.path // '/pets'
 */
export const operations = describe(registry);
