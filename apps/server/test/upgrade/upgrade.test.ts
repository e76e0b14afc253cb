import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPATIBILITY_FLOOR, MIGRATION_TABLE, RELEASE_TABLE } from '@petstore/core';
import { openDatabase } from '@petstore/embed';
import { databaseUrl, processClock, scratchPostgres, type ProcessClock } from '@petstore/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPetIds, sleep, startLoad } from '../faults/load.js';
import { runCli, startProcess, type ListedKey, type ServerProcess } from '../helpers.js';
import { previousRelease, type PreviousRelease } from './previous-release.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The store's migration names in a checkout (this one, or the previous release's), read from its registry's source. */
async function migrationNames(checkout: string): Promise<string[]> {
  const registry = await readFile(join(checkout, 'packages/core/src/storage/migrations/index.ts'), 'utf8');
  return [...registry.matchAll(/^\s+'(\d{4}-\d{2}-\d{2}-[^']+)':/gm)].map((match) => match[1]!);
}

// Release N-1 (the commit in previous-release.json, built once per machine by build-previous-release.mjs) writes data
// of every kind; release N (this code, built by `npm run build`) must open it and find all of it, on both databases.

const KEYS = {
  free: 'upgrade-free-key-0123456789',
  pro: 'upgrade-pro-key-0123456789',
  business: 'upgrade-business-key-0123456789',
  // Its day (40) binds before its minute, so the headers show the day's count.
  enterprise: 'upgrade-enterprise-key-0123456789',
  // Two a minute: the thirteenth request of a minute bans it for 15 minutes.
  banned: 'upgrade-banned-key-0123456789',
};
const CONFIGURED = `${KEYS.free}:free,${KEYS.pro}:pro,${KEYS.business}:business,${KEYS.enterprise}:enterprise:100:40,${KEYS.banned}:enterprise:2:1000`;
const ENTERPRISE_REQUESTS = 5;
/** The release this build names itself (scripts/build-info.mjs). */
const version = async () =>
  (JSON.parse(await readFile(new URL('../../build-info.json', import.meta.url), 'utf8')) as { version: string }).version;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

/** What release N-1 wrote, to be found again by N. */
interface Written {
  pets: { id: number; name: string }[];
  idempotent: { key: string; id: number }[];
  expiring: string;
  rolledOld: string;
  rolledNew: string;
  rolledId: string;
  revoked: string;
}

async function cli(previous: PreviousRelease | undefined, args: string[], env: Record<string, string>) {
  const result = await runCli(args, env, previous?.cliJs);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** Through a running release N-1: keys made with its tool, pets, idempotent creates, deprecated calls, quotas. */
async function writeWithPreviousRelease(previous: PreviousRelease, server: ServerProcess, env: Record<string, string>, clock: ProcessClock): Promise<Written> {
  const made = async (...args: string[]) => {
    const { stdout, stderr } = await cli(previous, ['keys', 'create', ...args], env);
    return { key: stdout.trim(), id: /Created key (\d+)/.exec(stderr)![1]! };
  };
  const expiring = await made('--plan', 'free', '--label', 'expiring', '--expires-in', '30d');
  const rolled = await made('--plan', 'pro', '--label', 'rolled');
  const rolledNew = (await cli(previous, ['keys', 'roll', rolled.id, '--grace', '24h'], env)).stdout.trim();
  const revoked = await made('--plan', 'business', '--label', 'revoked');
  await cli(previous, ['keys', 'revoke', revoked.id], env);

  const pets: Written['pets'] = [];
  for (const [i, key] of [KEYS.free, KEYS.pro, KEYS.business, expiring.key, rolledNew].entries()) {
    const response = await fetch(`${server.url}/v1/pets`, { method: 'POST', headers: { ...auth(key), ...json }, body: JSON.stringify({ name: `Before ${i}`, categoryId: i + 1 }) });
    expect(response.status).toBe(201);
    pets.push((await response.json()) as Written['pets'][number]);
  }
  const idempotent: Written['idempotent'] = [];
  for (const key of ['upgrade-idem-1', 'upgrade-idem-2']) {
    const response = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth(KEYS.pro), ...json, 'idempotency-key': key },
      body: JSON.stringify({ name: key, categoryId: 7 }),
    });
    expect(response.status).toBe(201);
    const pet = (await response.json()) as Written['pets'][number];
    pets.push(pet);
    idempotent.push({ key, id: pet.id });
  }
  for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/v1/pets/${pets[0]!.id}`, { headers: auth(KEYS.pro) })).status).toBe(200);
  for (let i = 0; i < ENTERPRISE_REQUESTS; i++) {
    expect((await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(KEYS.enterprise) })).status).toBe(200);
  }
  // Thirteen requests in one minute window: on the releases' clock, with room in its minute.
  await clock.minuteWithRoom(5);
  const statuses = [];
  for (let i = 0; i < 13; i++) statuses.push((await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(KEYS.banned) })).status);
  expect(statuses.slice(0, 2)).toEqual([200, 200]);
  const last = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(KEYS.banned) });
  expect(((await last.json()) as { code: string }).code).toBe('api_key_banned');
  return { pets, idempotent, expiring: expiring.key, rolledOld: rolled.key, rolledNew, rolledId: rolled.id, revoked: revoked.key };
}

/** Through release N, on what N-1 wrote: everything is there. */
async function findWithThisRelease(server: ServerProcess, env: Record<string, string>, written: Written, windowsKept: boolean) {
  // Listed, not fetched one by one: getPet is deprecated, and its calls are counted below.
  const listed = await fetch(`${server.url}/v1/pets?limit=100`, { headers: auth(KEYS.business) });
  expect(await listed.json()).toEqual(written.pets);
  // Each plan's key, with its limits.
  for (const [key, limit] of [[KEYS.free, 60], [KEYS.pro, 300], [KEYS.business, 1000], [written.expiring, 60], [written.rolledOld, 300], [written.rolledNew, 300]] as const) {
    const response = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(key) });
    expect({ status: response.status, limit: response.headers.get('x-ratelimit-limit') }).toEqual({ status: 200, limit: String(limit) });
  }
  const revoked = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(written.revoked) });
  expect({ status: revoked.status, code: ((await revoked.json()) as { code: string }).code }).toEqual({ status: 401, code: 'invalid_api_key' });
  const keys = JSON.parse((await cli(undefined, ['keys', 'list', '--json'], env)).stdout) as ListedKey[];
  expect(keys.find((row) => row.label === 'expiring')!.expiresAt).not.toBeNull();
  expect(keys.find((row) => row.id === Number(written.rolledId))!.replacedBy).not.toBeNull();
  expect(keys.find((row) => row.label === 'revoked')!.revokedAt).not.toBeNull();

  // Idempotent creates replay, and refuse another body.
  for (const { key, id } of written.idempotent) {
    const replay = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth(KEYS.pro), ...json, 'idempotency-key': key },
      body: JSON.stringify({ name: key, categoryId: 7 }),
    });
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), id: ((await replay.json()) as { id: number }).id }).toEqual({
      status: 201,
      replayed: 'true',
      id,
    });
    const other = await fetch(`${server.url}/v1/pets`, { method: 'POST', headers: { ...auth(KEYS.pro), ...json, 'idempotency-key': key }, body: JSON.stringify({ name: 'Other', categoryId: 7 }) });
    expect(other.status).toBe(409);
  }

  const deprecated = JSON.parse((await cli(undefined, ['keys', 'deprecated', '--json'], env)).stdout) as { operationId: string; calls: number }[];
  expect(deprecated).toEqual([expect.objectContaining({ operationId: 'getPet', calls: 3 })]);

  // The quota windows: the day's count goes on, and the ban holds.
  const enterprise = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(KEYS.enterprise) });
  const banned = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth(KEYS.banned) });
  if (windowsKept) {
    expect(enterprise.headers.get('x-ratelimit-remaining')).toBe(String(40 - ENTERPRISE_REQUESTS - 1));
    expect(((await banned.json()) as { code: string }).code).toBe('api_key_banned');
  }
}

const targets: { name: string; windowsKept: boolean; database(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> }[] = [
  {
    name: 'an embedded data folder',
    // Release N-1 counted in memory only on the embedded database: there were no windows to keep (docs/upgrading.md).
    windowsKept: false,
    async database() {
      const folder = await mkdtemp(join(tmpdir(), 'petstore-upgrade-'));
      return { env: { PETSTORE_DATA_DIR: folder }, drop: () => rm(folder, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          windowsKept: true,
          async database() {
            const scratch = await scratchPostgres();
            return { env: { DATABASE_URL: scratch.url }, drop: scratch.drop };
          },
        },
      ]
    : []),
];

let previous: PreviousRelease;
let previousMigrations: string[];
beforeAll(async () => {
  previous = await previousRelease();
  previousMigrations = await migrationNames(previous.dir);
}, 900_000);

describe.each(targets)('upgrading $name from the previous release', (target) => {
  const drops: (() => Promise<void>)[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    for (const drop of drops) await drop();
  });
  const start = async (env: Record<string, string>, entry?: string) => {
    const server = await startProcess(env, [], entry);
    servers.push(server);
    return server;
  };

  it('opens what the previous release wrote and finds all of it; the previous release then starts on it again, or refuses it when it cannot know this schema', { timeout: 240_000 }, async () => {
    const { env: data, drop } = await target.database();
    drops.push(drop);
    // The quota windows are clock minutes: both releases run on a clock the test controls.
    const clock = await processClock();
    drops.push(clock.close);
    const env = { ...data, ...clock.env, PETSTORE_API_KEYS: CONFIGURED };
    const before = await start(env, previous.mainJs);
    const written = await writeWithPreviousRelease(previous, before, data, clock);
    expect(await before.stop()).toBe(0);

    const after = await start(env);
    await findWithThisRelease(after, data, written, target.windowsKept);
    expect(await after.stop()).toBe(0);

    // Downgrade (DECISIONS "Releases both ways"): the previous release starts on the database again and finds the
    // data while this release adds no migration, or, from 0.2.0 on (a release that reads the compatibility floor),
    // while the floor this release records is one it knows; otherwise it refuses to start on it (exit 1), saying why.
    const added = (await migrationNames(root)).filter((name) => !previousMigrations.includes(name));
    const readsFloors = (await readFile(join(previous.dir, 'packages/core/src/storage/migrations/index.ts'), 'utf8')).includes('COMPATIBILITY_FLOOR');
    if (added.length === 0 || (readsFloors && previousMigrations.includes(COMPATIBILITY_FLOOR.migration))) {
      const back = await start(env, previous.mainJs);
      expect([...(await allPetIds(back.url, KEYS.free))]).toEqual(expect.arrayContaining(written.pets.map((pet) => pet.id)));
      expect(await back.stop()).toBe(0);
    } else {
      const refused = await startProcess(env, [], previous.mainJs).then(
        () => expect.unreachable(`the previous release started on a database this one migrated further (${added.join(', ')})`),
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/server exited with 1/);
      // Releases that record who migrated name the newer release; older ones (kysely's migrator) a migration they lack.
      expect(refused.includes('a newer release than this one') || added.some((name) => refused.includes(name))).toBe(true);
    }
  });

  it('refuses to start on a database a newer release migrated, naming that release', { timeout: 120_000 }, async () => {
    const { env, drop } = await target.database();
    drops.push(drop);
    const first = await start(env);
    expect(await first.stop()).toBe(0);
    // What a later release leaves: a migration this one does not know, and its row in petstore_release.
    const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.PETSTORE_DATA_DIR });
    try {
      await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values ('2099-01-01-900-future', ${new Date().toISOString()})`.execute(database.db);
      await sql`insert into ${sql.table(RELEASE_TABLE)} (release, latest_migration) values ('@petstore/server@99.0.0', '2099-01-01-900-future')`.execute(database.db);
      const { rows } = await sql<{ release: string }>`select release from ${sql.table(RELEASE_TABLE)} order by release`.execute(database.db);
      expect(rows.map((row) => row.release)).toContain(`@petstore/server@${await version()}`);
    } finally {
      await database.close();
    }
    const refused = await startProcess(env).then(
      () => expect.unreachable('this release started on a database of a newer one'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/server exited with 1/);
    expect(refused).toContain(`This database was migrated by @petstore/server@99.0.0, a newer release than this one (@petstore/server@${await version()})`);
    const tool = await runCli(['keys', 'list'], env);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain('migrated by @petstore/server@99.0.0');
  });
});

describe.runIf(databaseUrl)('the previous release and this one on one PostgreSQL', () => {
  it('serve side by side under load with no error, and every create is kept', { timeout: 180_000 }, async () => {
    const db = await scratchPostgres();
    const key = 'upgrade-side-by-side-key-0123';
    const env = { DATABASE_URL: db.url, PETSTORE_API_KEYS: `${key}:enterprise:1000000:100000000` };
    // The previous release made the database; this one joins it, as in a rolling upgrade.
    const old = await startProcess(env, [], previous.mainJs);
    const current = await startProcess(env);
    try {
      const loads = [old, current].map((server) => startLoad({ url: server.url, key, clients: 10, createShare: 0.5 }));
      await sleep(4_000);
      const outcomes = (await Promise.all(loads.map((load) => load.stop()))).flat();
      const failed = outcomes.filter((o) => o.status < 200 || o.status > 299);
      expect(failed.map((o) => `${o.status} ${o.error ?? o.body}`)).toEqual([]);
      const created = outcomes.filter((o) => o.kind === 'create').map((o) => (JSON.parse(o.body) as { id: number }).id);
      expect(created.length).toBeGreaterThan(50);
      for (const server of [old, current]) {
        const stored = await allPetIds(server.url, key);
        expect(created.filter((id) => !stored.has(id))).toEqual([]);
      }
      console.info(`side by side: ${outcomes.length} requests (${created.length} creates) on the previous release and this one, none failed`);
    } finally {
      expect(await old.stop()).toBe(0);
      expect(await current.stop()).toBe(0);
      await db.drop();
    }
  });
});

describe('one embedded data folder, two releases', () => {
  it('refuses this release on a folder the previous one holds, and the other way round, naming the holder', { timeout: 120_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-upgrade-lock-'));
    const env = { PETSTORE_DATA_DIR: folder };
    try {
      for (const [holderEntry, secondEntry] of [
        [previous.mainJs, undefined],
        [undefined, previous.mainJs],
      ]) {
        const holder = await startProcess(env, [], holderEntry);
        try {
          const refused = await startProcess(env, [], secondEntry).then(
            () => expect.unreachable('two releases opened one data folder'),
            (error: Error) => error.message,
          );
          expect(refused).toContain(`The embedded database in ${folder} is in use by process ${holder.child.pid}.`);
        } finally {
          expect(await holder.stop()).toBe(0);
        }
      }
      // A release before petstore.lock/ held a folder by its petstore.pid alone: a process that runs is a holder.
      const earlier = spawn('sleep', ['60'], { stdio: 'ignore' });
      try {
        await writeFile(join(folder, 'petstore.pid'), String(earlier.pid));
        const refused = await startProcess(env).then(
          () => expect.unreachable('this release opened a folder an earlier one holds'),
          (error: Error) => error.message,
        );
        expect(refused).toContain(`is in use by process ${earlier.pid}.`);
      } finally {
        earlier.kill('SIGKILL');
        await once(earlier, 'exit');
      }
      const after = await startProcess(env);
      expect(await after.stop()).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
