export { procedurePaths, type AppRouter } from './app-router.js';
export { appRouter, type PetStoreTypeError } from './not-a-host-router.js';
export {
  createPetsRouter,
  petsResponseMeta,
  PetsPage,
  type Caller,
  type PetsProcedures,
  type PetsRouter,
  type PetsResponseMeta,
  type PetsRouterOptions,
  type PrincipalHook,
  type RequestBearingContext,
} from './create-pets-router.js';
export { maxBatchSize } from './max-batch-size.js';
export { withPetStoreErrors, type WithPetStoreErrors } from './errors/with-pet-store-errors.js';
export type { Context } from './context.js';
export { procedures, procedureAt, type ProcedureDefinition } from './procedures.js';
export { createTrpcHandler, type TrpcHandlerOptions } from './http/trpc-handler.js';
export { createTrpcCodec, type TrpcCodecOptions } from './http/trpc-codec.js';
export { trpcErrorShape, type TrpcErrorShape } from './errors/trpc-envelope.js';
export { formatError, type PetStoreErrorData } from './errors/error-formatter.js';
export { petStoreErrorOf, petStoreErrorIn, toTrpcError } from './errors/error-mapping.js';
