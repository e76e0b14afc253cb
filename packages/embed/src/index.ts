export { openDatabase, openRedis, restoreDataDir, type DatabaseOptions, type OpenDatabase } from '@petstore/drivers';
export type { HostPool } from '@petstore/drivers';
export {
  DatabaseOfNewerReleaseError,
  generateApiKey,
  isDatabaseUnavailable,
  migrateToLatest,
  MIGRATION_LOCK_TABLE,
  MIGRATION_TABLE,
  PetStoreError,
  petStoreMigrations,
  type CallContext,
  type ErrorBody,
  type ErrorCode,
  type MigrateOptions,
  type Pet,
  type PetStore,
  type PlanName,
  type StoreSchema,
} from '@petstore/core';
export {
  openPetStore,
  StoreClosedError,
  type ConfiguredApiKey,
  type HostKyselyOptions,
  type HostPoolOptions,
  type OpenPetStore,
  type OpenPetStoreOptions,
  type OwnDatabaseOptions,
  type StoreOptions,
} from './open-pet-store.js';
export { createFastifyPlugin, type FastifyPlugin, type FastifyRequestLike, type FastifyScope } from './create-fastify-plugin.js';
export { createHttpHandler, type HttpHandlerOptions } from './create-http-handler.js';
export { createFetchHandler, type FetchHandler } from './create-fetch-handler.js';
export { createServicePipeline, type HandlerOptions, type HostRedirect } from './create-pipeline.js';
export type { NodeHandler, CorsOrigins, FetchConnection } from '@petstore/http';
export type { TrustProxy } from '@petstore/http';
export { createDnsCheck, type DnsCheckOptions } from '@petstore/drivers';
export { createWebhookTransport } from '@petstore/drivers';
export {
  closeGracefully,
  createOutageLog,
  createOverloadGuard,
  PINO_VERSIONS_CHECKED,
  type GracefulCloseOptions,
  type OutageLog,
  type OverloadGuard,
  type PetStoreLogger,
  type RequestLogger,
} from '@petstore/http';
export type { PetStoreMetrics } from '@petstore/core';
