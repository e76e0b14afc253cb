export { createClient, type ClientOptions, type PetStoreClient } from './create-client.js';
export { PetStoreApiError, type ErrorDetail, type PetStoreApiErrorFields } from './pet-store-api-error.js';
export type { CallOptions } from './call-options.js';
export type { ClientClock } from './clock.js';
export type { DeprecationHandler, DeprecationNotice } from './deprecation-notice.js';
export type { InputArgs, OperationMethod } from './operation-method.js';
export type { OperationMethods } from './operation-methods.js';
export type { OperationId, OperationInput, OperationOutput, PageableOperationId, PageItem } from './operation-types.js';
export { operations, type Route } from './operations.js';
