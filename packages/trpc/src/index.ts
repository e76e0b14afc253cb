export { appRouter, procedurePaths, type AppRouter } from './app-router.js';
export { petsRouter } from './pets-router.js';
export type { Context } from './context.js';
export { procedures, procedureAt, type ProcedureDefinition } from './procedures.js';
export { createTrpcHandler, type TrpcHandlerOptions } from './http/trpc-handler.js';
export { formatError, type PetStoreErrorData } from './errors/error-formatter.js';
export { petStoreErrorOf, toTrpcError } from './errors/error-mapping.js';
