export { openDatabase, restoreDataDir, type DatabaseOptions, type OpenDatabase } from './open-database.js';
export { openRedis } from './open-redis.js';
export { openPetStore, type OpenPetStoreOptions, type OpenPetStore, type ConfiguredApiKey } from './open-pet-store.js';
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions, type HostRedirect } from './create-http-handler.js';
export type { TrustProxy } from '@petstore/http';
