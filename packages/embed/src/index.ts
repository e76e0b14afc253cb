export { openDatabase, type DatabaseOptions, type OpenDatabase } from './open-database.js';
export { openRedis } from './open-redis.js';
export { openPetStore, type OpenPetStoreOptions, type OpenPetStore, type ConfiguredApiKey } from './open-pet-store.js';
export { createHttpHandler, type HttpHandlerOptions, type HostRedirect } from './create-http-handler.js';
