import type { OperationMethod } from './operation-method.js';
import type { OperationId } from './operation-types.js';

/**
 * One method per operation of the service, named by its operationId. The published types list them one by one, each
 * with its route and, on a deprecated operation, `@deprecated` (scripts/build.mjs writes them from the registry).
 */
export type OperationMethods = { readonly [K in OperationId]: OperationMethod<K> };
