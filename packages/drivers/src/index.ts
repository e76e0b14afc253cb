export { openDatabase, restoreDataDir, type DatabaseOptions, type OpenDatabase } from './open-database.js';
export { openRedis, type RedisClient } from './open-redis.js';
export type { PostgresPool, PostgresQueryResult } from './postgres-pool.js';
