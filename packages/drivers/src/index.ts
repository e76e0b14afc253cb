export { openDatabase, restoreDataDir, type DatabaseOptions, type OpenDatabase } from './open-database.js';
export { openRedis, redisTakesWrites, type OpenRedisOptions, type RedisClient } from './open-redis.js';
export type { PostgresPool, PostgresQueryResult } from './postgres-pool.js';
export { openHostDatabase, type HostDatabase, type HostDatabaseOptions, type HostPool } from './host-database.js';
export { ACQUIRE_TIMEOUT_MS, AcquireTimeoutError, boundedAcquire } from './bounded-acquire.js';
export { createDnsCheck, type DnsCheckOptions } from './dns-check.js';
export type { DatabaseWait } from './database-wait.js';
export { unreachableDatabase, type GivenDatabase } from './unreachable-database.js';
export { createWebhookTransport, serversResolve, systemResolve } from './webhook-transport.js';
