import type { CallOptions } from './call-options.js';
import type { OperationId, OperationInput, OperationOutput } from './operation-types.js';

/** A call's arguments: the input (optional when every field is) and the call's options. */
export type InputArgs<K extends OperationId> =
  Record<string, never> extends OperationInput<K>
    ? [input?: OperationInput<K>, options?: CallOptions]
    : [input: OperationInput<K>, options?: CallOptions];

/**
 * The method that calls one operation and resolves to its answer's body.
 * @example const call: OperationMethod<'createPet'> = petstore.createPet
 */
export type OperationMethod<K extends OperationId> = (...args: InputArgs<K>) => Promise<OperationOutput<K>>;
