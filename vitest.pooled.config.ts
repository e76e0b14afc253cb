import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import lanes from './vitest.config.js';

// CI's second PostgreSQL run, through PgBouncer in transaction pooling as fleets run it (docs/deploying.md):
// `DATABASE_URL=…:6432/… npx vitest run --config vitest.pooled.config.ts`. It reruns what can differ through a
// transaction pooler, chosen by where a file is, so a new file of those kinds is included without a line here:
// storage, quotas, idempotency and keys (their folders in the core), the database drivers, migrations (any file
// named for them), the key tool (the CLI package and the service's `cli*` tests) and the fleet (the service's
// `*fleet*` and `quota*` tests: several processes on one database). Left out: the tests that start a PgBouncer or a
// PostgreSQL cluster of their own (`*pgbouncer*`, `faults/`), and the one that needs its client's own connection.
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
        'apps/*/test/**/cli*.test.ts',
        'apps/*/test/**/*{fleet,quota}*.test.ts',
      ],
      // Also left out: the held-client test, which terminates the backend under a client the store holds; through
      // PgBouncer it is the pooler's server connection that dies, never the client's (that test needs the server).
      exclude: [...configDefaults.exclude, '**/*pgbouncer*', 'apps/*/test/faults/**', 'packages/drivers/src/listen-while-held.test.ts'],
      maxWorkers: 3,
    },
  }),
);
