export { appRouter, procedurePaths, type AppRouter } from './app-router.js';
export { petsRouter } from './pets-router.js';
export { createContext, type Context, type CreateContextOptions } from './context.js';
export { createTrpcHandler, type TrpcHandlerOptions } from './http/trpc-handler.js';
export { formatError, type PetStoreErrorData } from './errors/error-formatter.js';
export { petStoreErrorOf, toTrpcError } from './errors/error-mapping.js';
export { createOpenApiDocument } from './openapi/openapi-document.js';
export { completeDocument, type CompleteDocumentOptions, type OpenApiServers } from './openapi/complete-document.js';
