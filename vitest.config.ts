import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (the `@petstore/source` export condition).
const conditions = ['@petstore/source', 'node', 'default'];

// Two lanes. `npm test` runs the fast one: what needs nothing but Node and PGlite (unit and contract tests, servers
// in the test's own process on port 0), many files at once. `npm run test:slow` runs the slow one: the tests that
// start processes (the built server, the key tool, child hosts, redis-server, dnsmasq, Chromium, throwaway
// PostgreSQL clusters), proxies (HAProxy, Caddy, nginx, PgBouncer) and faults, and those that measure a process under
// load. CI runs both. A file is in the slow lane when it matches `slow` or `alone` below; every other file is fast.

/**
 * The tests of processes, proxies and faults: they mostly wait (for a child to start, a proxy to pass a request, a
 * timeout to fire), so several files run side by side; each draws its ports from `freePort`, its databases from
 * `scratchPostgres` and its Redis keys from a prefix of its own, so none steps on another.
 */
const slow = [
  // apps/*/test holds the tests of the built service as a process (`startProcess`, `runCli`), behind proxies, and
  // under faults and attacks. Its in-process files are the exceptions listed in `inProcessServerTests`.
  'apps/*/test/**/*.test.ts',
  // A process or a program of their own beside an in-process test: dnsmasq (custom domains), redis-server (a Redis
  // outage), Chromium (a browser page), child host processes (the data folder lock, a host that forgets close(), a
  // host's peak memory, a host whose database connections are lost under load).
  'apps/server/src/domain-registry.test.ts',
  'packages/drivers/src/dns-check.test.ts',
  'packages/core/src/quota/redis-counters.test.ts',
  'packages/embed/src/open-redis.test.ts',
  'packages/client/src/browser.test.ts',
  'packages/pglite/src/data-dir-lock.test.ts',
  'packages/embed/src/forgotten-close.test.ts',
  'packages/embed/src/host-connection-loss.test.ts',
  'packages/embed/src/embedded-memory.test.ts',
  // Faults in the test's own process: a PostgreSQL pool held to exhaustion, answered after its real 5 s wait;
  // terminated backends and pools that must connect within 200 ms, told apart from faults of the service; a host's
  // clients whose backends end while the store holds them.
  'packages/embed/src/database-outage.test.ts',
  'packages/core/src/errors/is-database-unavailable.test.ts',
  'packages/drivers/src/listen-while-held.test.ts',
];

/** Files of apps/server/test that start the service in the test's own process (`startServer` on port 0): fast. */
const inProcessServerTests = [
  'apps/server/test/client-faults.test.ts',
  'apps/server/test/edge.test.ts',
  'apps/server/test/fuzz.test.ts',
  'apps/server/test/observability.test.ts',
  'apps/server/test/readme-config.test.ts',
  'apps/server/test/readme-webhooks.test.ts',
  'apps/server/test/orders.test.ts',
  'apps/server/test/server.test.ts',
  'apps/server/test/store-changes.test.ts',
  'apps/server/test/webhook-metrics.test.ts',
];

/**
 * The slow files that run one at a time, each alone: they assert what a process does under a load that fills both
 * cores (latency medians under attack against a reference, p99 and shedding under overload, recovery within a bound
 * while clients hammer a fleet), so a neighbour's load would be measured as theirs. A file that only waits (the slow
 * clients' test: 100 connections sending a byte a second until the headers timeout, one client served meanwhile
 * within a second) loads nothing and runs side by side in `slow`.
 */
const alone = [
  'apps/server/test/hostile/trpc-*.test.ts',
  'apps/server/test/hostile/burst.test.ts',
  'apps/server/test/hostile/health-flood.test.ts',
  'apps/server/test/faults/overload.test.ts',
  'apps/server/test/faults/fleet-faults.test.ts',
  'apps/server/test/faults/postgres-outage.test.ts',
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    globalSetup: ['./vitest.global-setup.ts'],
    // Three files at once on two cores: a test gets about two thirds of a core, and the machine may be shared. The
    // timeouts are room, not assertions.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'examples/**/*.test.ts', ...inProcessServerTests],
          exclude: [...configDefaults.exclude, ...slow.filter((glob) => !glob.startsWith('apps/*/test/'))],
          // Three files at once on two cores: PGlite and the in-process servers wait on I/O part of the time.
          maxWorkers: 3,
          typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.typetest.json' },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: slow,
          exclude: [...configDefaults.exclude, ...inProcessServerTests, ...alone],
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow-alone',
          include: alone,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
