export { errorCodes, type ErrorCode, type TrpcCode } from './error-codes.js';
export { PetStoreError, toPetStoreError, type ErrorBody, type ErrorDetail } from './pet-store-error.js';
export { DependencyUnavailableError, unavailableDependency } from './dependency-unavailable.js';
export { isDatabaseUnavailable } from './is-database-unavailable.js';
