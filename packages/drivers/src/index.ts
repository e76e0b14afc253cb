export { openDatabase, restoreDataDir, type DatabaseOptions, type OpenDatabase } from './open-database.js';
export { openRedis } from './open-redis.js';
export { openHostDatabase, type HostDatabase, type HostDatabaseOptions, type HostPool } from './host-database.js';
export { createDnsCheck, type DnsCheckOptions } from './dns-check.js';
