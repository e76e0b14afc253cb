import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseUrl, outputOf, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { pgbouncerUnsupported, startPgBouncer, type PgBouncer } from '../pgbouncer.js';
import { send, sleep, startLoad, type Outcome } from './load.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const KEY = 'pooled-session-key-0123456789';

// In CI (.ci/run installs PgBouncer) these tests must run: there they fail instead.
const unsupported = !databaseUrl ? 'DATABASE_URL is not set' : process.env.CI ? undefined : pgbouncerUnsupported();
if (unsupported) console.warn(`skipping the pooled-session faults: ${unsupported}`);

/** The `sh` block of docs/upgrading.md marked `<!-- test: NAME -->`, as a reader would paste it. */
async function block(name: string): Promise<string> {
  const doc = await readFile(join(root, 'docs/upgrading.md'), 'utf8');
  const found = new RegExp(`<!-- test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(doc)?.[1];
  if (!found) throw new Error(`docs/upgrading.md has no block marked ${name}`);
  return found;
}

/** `/healthz` of each instance, asked every 50 ms until stopped: every status seen. */
function watchHealth(instances: ServerProcess[]) {
  const statuses: number[] = [];
  let running = true;
  const watching = (async () => {
    while (running) {
      for (const instance of instances) statuses.push((await send({ url: instance.url, method: 'GET', path: '/healthz', timeoutMs: 10_000 })).status);
      await sleep(50);
    }
  })();
  return {
    async stop() {
      running = false;
      await watching;
      return statuses;
    },
  };
}

/** Requests that got a 5xx or no answer at all, as `status body` lines (a 503 on a full pool would be one). */
const failures = (outcomes: Outcome[]) => outcomes.filter((o) => o.status === 0 || o.status >= 500).map((o) => `${o.status} ${o.error ?? ''} ${o.body}`);

describe.skipIf(unsupported)('the service behind PgBouncer (transaction pooling), whatever a pooled session was left with', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let pooledUrl: string;
  let instances: ServerProcess[];
  let cwd: string;

  beforeAll(async () => {
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url);
    pooledUrl = new URL(new URL(db.url).pathname, bouncer.url).toString();
    // Its monitor asks /healthz of each instance 20 times a second, from one address: that address may.
    const env = { DATABASE_URL: pooledUrl, PETSTORE_API_KEYS: `${KEY}:enterprise:100000000:1000000000`, PETSTORE_ADDRESS_LIMIT_PER_MINUTE: '1000000' };
    instances = await Promise.all([startProcess(env), startProcess(env)]);
    cwd = await mkdtemp(join(tmpdir(), 'petstore-pooled-session-'));
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await bouncer?.stop();
    await db?.drop();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  /** Load on every instance while `during` runs, and a second after: the outcomes, and /healthz all along. */
  async function underLoad(during: () => Promise<void>) {
    const loads = instances.map((instance) => startLoad({ url: instance.url, key: KEY, clients: 8, createShare: 0.3 }));
    const health = watchHealth(instances);
    await sleep(500);
    await during();
    await sleep(1_000);
    const outcomes = (await Promise.all(loads.map((load) => load.stop()))).flat();
    return { outcomes, health: await health.stop() };
  }

  it("answers no 500 and keeps /healthz at 200 while the docs' backup block runs, even pointed at PgBouncer", { timeout: 180_000 }, async () => {
    const backup = await block('backup-postgres');
    // The docs send it to PostgreSQL itself; through PgBouncer is the case that broke fleets, so it is the one run.
    const { outcomes, health } = await underLoad(async () => {
      for (let i = 0; i < 3; i++) {
        const child = spawn('bash', ['-c', `set -euo pipefail\n${backup}\n`], {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: cwd, PETSTORE_ADMIN_DATABASE_URL: pooledUrl },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const { code, stderr } = await outputOf(child);
        expect(code, stderr).toBe(0);
      }
    });
    expect(outcomes.filter((o) => o.status >= 200 && o.status < 300).length).toBeGreaterThan(100);
    expect(failures(outcomes)).toEqual([]);
    expect(health.filter((status) => status !== 200)).toEqual([]);
  });

  it("answers no 500 once every server connection of PgBouncer's pool was left with an empty search_path", { timeout: 180_000 }, async () => {
    // Twenty sessions at once, each holding a server connection while it sets search_path for the session (not the
    // transaction): in transaction pooling the setting stays on the server connection after the commit.
    const poisonAll = async () => {
      const clients = Array.from({ length: 20 }, () => new pg.Client({ connectionString: pooledUrl }));
      await Promise.all(clients.map((client) => client.connect()));
      try {
        await Promise.all(clients.map((client) => client.query(`begin; set search_path = ''; select pg_sleep(0.3); commit`)));
      } finally {
        await Promise.all(clients.map((client) => client.end()));
      }
    };
    const { outcomes, health } = await underLoad(async () => {
      for (let i = 0; i < 3; i++) {
        await poisonAll();
        await sleep(300);
      }
    });
    // The poison took: a fresh client of PgBouncer is handed a server connection with the empty path.
    const seen = new pg.Client({ connectionString: pooledUrl });
    await seen.connect();
    const paths = new Set<string>();
    try {
      for (let i = 0; i < 20; i++) paths.add(((await seen.query<{ search_path: string }>('show search_path')).rows[0]!).search_path);
    } finally {
      await seen.end();
    }
    expect(paths).toContain('""');
    expect(outcomes.filter((o) => o.status >= 200 && o.status < 300).length).toBeGreaterThan(100);
    expect(failures(outcomes)).toEqual([]);
    expect(health.filter((status) => status !== 200)).toEqual([]);
  });
});
