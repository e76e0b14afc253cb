import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { migrateToLatest, PetStoreError } from '@petstore/core';
import { openDatabase, openRedis, type OpenDatabase } from '@petstore/drivers';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { expect } from 'vitest';
import { freePort } from './free-port.js';
import { killAtExit, stopChild } from './stop-child.js';

export { freePort } from './free-port.js';
export { listen, type Listening } from './listen.js';
export { processClock, type ProcessClock } from './process-clock.js';
export { killAtExit } from './stop-child.js';
export { operationRoutes, type OperationRoute } from './operation-routes.js';
export { outputOf, type Output } from './output-of.js';

/** The drivers, for tests that open a database of their own. */
export { createWebhookTransport, openDatabase, type OpenDatabase } from '@petstore/drivers';

/** A database a test can run on: PGlite always, PostgreSQL when `DATABASE_URL` is set. */
export interface TestDatabase {
  name: 'pglite' | 'postgres';
  /** Opens a fresh, migrated, empty database; `close` drops it again. */
  open(): Promise<OpenDatabase & { url?: string }>;
}

/** The PostgreSQL server tests use, if any. In CI it is always set. */
export const databaseUrl = process.env.DATABASE_URL || undefined;

async function createScratchDatabase(baseUrl: string) {
  const name = `petstore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  admin.on('error', () => {}); // a server restart must fail the query, not end the test process
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: baseUrl });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), drop };
}

/**
 * Creates an empty PostgreSQL database for one test (or process) and returns its URL and a drop function.
 * @example const { url, drop } = await scratchPostgres()
 */
export async function scratchPostgres() {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  return createScratchDatabase(databaseUrl);
}

/**
 * The databases every storage and operation test loops over.
 * @example describe.each(testDatabases)('on $name', ({ open }) => { … })
 */
export const testDatabases: TestDatabase[] = [
  {
    name: 'pglite',
    async open() {
      const database = await openDatabase({ dataDir: 'memory://' });
      await migrateToLatest(database.db);
      return database;
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres' as const,
          async open() {
            const scratch = await createScratchDatabase(databaseUrl);
            const database = await openDatabase({ databaseUrl: scratch.url });
            await migrateToLatest(database.db);
            return {
              ...database,
              url: scratch.url,
              close: async () => {
                await database.close();
                await scratch.drop();
              },
            };
          },
        },
      ]
    : []),
];

/**
 * Two instances on one fresh, migrated PostgreSQL database: two pools, as two servers would have.
 * @example const { first, second, close } = await openTwoInstances(); … await close()
 */
export async function openTwoInstances() {
  const postgres = testDatabases.find((d) => d.name === 'postgres');
  if (!postgres) throw new Error('DATABASE_URL is not set');
  const first = await postgres.open();
  const second = await openDatabase({ databaseUrl: first.url! });
  return {
    first,
    second,
    async close() {
      await second.close();
      await first.close();
    },
  };
}

/**
 * Awaits a call that must be refused and answers its PetStoreError; fails the test when it succeeds or throws
 * anything else.
 * @example expect((await refusal(store.listPets({}, {}))).code).toBe('missing_api_key')
 */
export async function refusal(promise: Promise<unknown>): Promise<PetStoreError> {
  const error = await promise.then(
    () => expect.unreachable('expected the call to be refused with a PetStoreError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PetStoreError);
  return error as PetStoreError;
}

/** The Redis server tests use, if any (`REDIS_URL`). In CI it is always set. */
export const redisUrl = process.env.REDIS_URL || undefined;

/**
 * A client on the test Redis and a key prefix no other test uses; `close` deletes the prefix's keys and disconnects.
 * Pass the prefix of another to share its counters, as a second instance would.
 * @example const { client, keyPrefix, close } = await openTestRedis(); createQuota({ store: 'redis', client, keyPrefix })
 */
export async function openTestRedis(keyPrefix = `petstore_test_${randomBytes(6).toString('hex')}`, url = redisUrl) {
  if (!url) throw new Error('REDIS_URL is not set');
  // The drivers' client is ioredis's own (typed by what the packages call); these helpers scan and delete too.
  const client = (await openRedis(url)) as Redis;
  return {
    client,
    keyPrefix,
    async close() {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}:*`, 'COUNT', 1000);
        if (keys.length) await client.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      client.disconnect();
    },
  };
}

/**
 * A redis-server process of the test's own, on a free loopback port (kept while it is down), that the test may stop and start again (an
 * outage); it keeps nothing on disk; `extraArgs` go to redis-server. Needs `redis-server` on the PATH, as CI installs it.
 * @example const redis = await startRedisServer(); await redis.stop(); await redis.start(); await redis.stop()
 */
export async function startRedisServer(extraArgs: string[] = []) {
  const port = await freePort();
  let child: ChildProcess | undefined;
  async function start() {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs];
    const started = spawn('redis-server', args, {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    started.stdout!.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
      started.stdout!.on('data', (chunk: string) => {
        out += chunk;
        if (/ready to accept connections/i.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
    });
    started.stdout!.resume();
    child = started;
    // A test that times out must not leave its server behind.
    killAtExit(started);
  }
  async function stop() {
    const running = child;
    child = undefined;
    await stopChild(running);
  }
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as when Redis hangs. */
  const pause = () => void child?.kill('SIGSTOP');
  const resume = () => void child?.kill('SIGCONT');
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop, pause, resume };
}

export { dnsmasqInstalled, startDnsServer, type DnsRecords } from './dns-server.js';
