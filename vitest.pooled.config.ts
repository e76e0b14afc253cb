import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import lanes from './vitest.config.js';

// CI's second PostgreSQL run, through PgBouncer in transaction pooling as fleets run it (docs/deploying.md):
// `DATABASE_URL=…:6432/… npx vitest run --config vitest.pooled.config.ts`. It reruns what can differ through a
// transaction pooler, chosen by where a file is, so a new file of those kinds is included without a line here:
// storage, quotas, idempotency and keys (their folders in the core), the database drivers, migrations (any file
// named for them), the key tool (the CLI package and the service's `cli*` tests) and the fleet (the service's
// `*fleet*` and `quota*` tests: several processes on one database). Left out: the tests that start a PgBouncer or a
// PostgreSQL cluster of their own (`*pgbouncer*`, `faults/`), the one that needs its client's own connection, and
// those that open no database at all, which would run the same code a second time and prove nothing new.
/**
 * Files of those folders that open no database: pure functions (a duration, a request's hash, an address's bucket,
 * counters in memory, a memo) and the quota on Redis alone. The key tool's tests are `cli.test.ts` and `cli-*.test.ts`
 * (the glob above), not every name that starts with `cli` (client-faults: a request body that breaks off).
 */
const noDatabase = [
  'packages/cli/src/duration.test.ts',
  'packages/core/src/idempotency/request-hash.test.ts',
  'packages/core/src/quota/address-bucket.test.ts',
  'packages/core/src/quota/coalesced-counters.test.ts',
  'packages/core/src/quota/memoized.test.ts',
  'packages/core/src/quota/redis-counters.test.ts',
];

export default mergeConfig(
  { ...lanes, test: { ...lanes.test, projects: undefined } },
  defineConfig({
    test: {
      name: 'pooled',
      include: [
        'packages/core/src/{storage,quota,idempotency,auth}/**/*.test.ts',
        'packages/drivers/src/**/*.test.ts',
        '{packages,apps}/**/*migration*.test.ts',
        'packages/cli/src/**/*.test.ts',
        'apps/*/test/**/cli{,-*}.test.ts',
        'apps/*/test/**/*{fleet,quota}*.test.ts',
      ],
      // Also left out: the held-client test, which terminates the backend under a client the store holds; through
      // PgBouncer it is the pooler's server connection that dies, never the client's (that test needs the server).
      exclude: [...configDefaults.exclude, '**/*pgbouncer*', 'apps/*/test/faults/**', 'packages/drivers/src/listen-while-held.test.ts', ...noDatabase],
      maxWorkers: 3,
    },
  }),
);
