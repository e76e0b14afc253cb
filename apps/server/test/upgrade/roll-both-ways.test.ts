import { readFile } from 'node:fs/promises';
import { freePort, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPetIds, send, sleep, startLoad, type Outcome } from '../faults/load.js';
import { startHaproxy, type Balancer } from '../haproxy.js';
import { cliJs, mainJs, runCli, startProcess, type ListedKey, type ServerProcess } from '../helpers.js';
import { fleetUnsupported, startPgBouncer, type PgBouncer } from '../pgbouncer.js';
import { scratchRelease, type ScratchRelease } from './next-release.js';

// DECISIONS "Releases both ways", as an operator runs it (docs/upgrading.md): this build as release N, and N+1 = this
// build plus an additive migration (a later commit of a scratch repository), three instances behind the documented
// HAProxy, on PostgreSQL behind the documented PgBouncer, under load. Roll N → N+1 one instance at a time, restart an
// N instance and run N's key tool mid-roll, roll back N+1 → N: no failed request, every acknowledged create kept.
// Then N+2 adds a contract step: N is refused, naming N+2 and the floor it moved to.

// In CI (.ci/run installs PgBouncer and HAProxy, and sets DATABASE_URL) the test must run: there it fails instead.
const unsupported = fleetUnsupported('the rolling upgrade and rollback');

const KEY = 'roll-both-ways-key-0123456789';
const CLIENTS = 6;
/** After an instance answers /livez: HAProxy's two checks (docs/deploying.md) before the next one stops. */
const SETTLE_MS = 1_500;

/** An additive migration, as pets.version is: a NOT NULL column with a default, a nullable one, and a table. */
const ADDITIVE = {
  name: '2099-01-01-900-scratch-additive',
  statements: [
    'alter table {pets} add column scratch_revision bigint not null default 1, add column scratch_note text',
    'create table {scratch_notes} (id bigint primary key, note text not null)',
  ],
};
/** A contract step after it: drops what N+1 added, moving the floor past N. */
const CONTRACT = {
  name: '2099-01-02-900-scratch-contract',
  statements: ['drop table {scratch_notes}'],
  contract: '@petstore/server@99.0.0',
};

const ok = (o: Outcome) => o.status >= 200 && o.status < 300;

describe.skipIf(unsupported)('a rolling upgrade and its rollback, through HAProxy and PgBouncer, under load', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let balancer: Balancer;
  let next: ScratchRelease;
  let contract: ScratchRelease;
  let env: Record<string, string>;
  let ports: number[];
  const instances: ServerProcess[] = [];
  const others: ServerProcess[] = [];
  const release = (entry: string) => (entry === mainJs ? 'N' : 'N+1');

  const start = async (port: number, entry: string) => startProcess({ ...env, PORT: String(port) }, [], entry, 90_000);
  const version = async (server: ServerProcess) => ((await (await fetch(`${server.url}/healthz`)).json()) as { version: string }).version;
  const ownVersion = async (entry: string) => (await runCli(['--version'], {}, entry === mainJs ? cliJs : next.cliJs)).stdout.trim();

  beforeAll(async () => {
    next = await scratchRelease([ADDITIVE]);
    contract = await scratchRelease([CONTRACT], next);
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url);
    env = { DATABASE_URL: bouncer.url, PETSTORE_TRUST_PROXY: 'true', PETSTORE_API_KEYS: `${KEY}:enterprise:100000000:1000000000` };
    ports = [await freePort(), await freePort(), await freePort()];
    for (const port of ports) instances.push(await start(port, mainJs));
    balancer = await startHaproxy(instances.map((instance) => instance.url));
  }, 240_000);

  afterAll(async () => {
    await balancer?.stop();
    await Promise.all([...instances, ...others].map((instance) => instance.stop('SIGKILL')));
    await bouncer?.stop();
    await db?.drop();
    next?.remove();
    contract?.remove();
  });

  it('rolls N → N+1 and back with no failed request and nothing lost; an N instance restarted mid-roll starts, and N’s key tool works', { timeout: 300_000 }, async () => {
    const [n, n1] = [await ownVersion(mainJs), await ownVersion(next.mainJs)];
    expect(n).not.toBe(n1);
    const load = startLoad({ url: `https://127.0.0.1:${balancer.port}`, key: KEY, clients: CLIENTS, createShare: 0.5, timeoutMs: 30_000, connectionPerClient: true });
    const steps: string[] = [];
    const rollStart = Date.now();
    const exits: (number | null)[] = [];
    /** SIGTERM the instance on `i`, start `entry` in its place, wait until it serves and HAProxy has seen it. */
    const replace = async (i: number, entry: string) => {
      const started = Date.now();
      steps.push(`at ${started - rollStart} ms: SIGTERM to instance ${i + 1}`);
      exits.push(await instances[i]!.stop('SIGTERM'));
      instances[i] = await start(ports[i]!, entry);
      await expect.poll(async () => (await send({ url: instances[i]!.url, method: 'GET', path: '/livez' })).status).toBe(200);
      expect(await version(instances[i]!)).toBe(entry === mainJs ? n : n1);
      steps.push(`at ${Date.now() - rollStart} ms: ${release(entry)} on instance ${i + 1}, in ${Date.now() - started} ms`);
      await sleep(SETTLE_MS);
    };
    let madeMidRoll: { key: string; list: ListedKey[] } | undefined;
    try {
      await sleep(1_000);
      // Forward: the first N+1 migrates the database while two N instances serve.
      await replace(0, next.mainJs);
      // Mid-roll: an N instance restarts (a crash, a redeploy) and starts on N+1's schema; N's key tool works.
      await replace(2, mainJs);
      const made = await runCli(['keys', 'create', '--plan', 'pro', '--label', 'mid-roll'], { DATABASE_URL: bouncer.url }, cliJs);
      expect(made.code, made.stderr).toBe(0);
      const listed = await runCli(['keys', 'list', '--json'], { DATABASE_URL: bouncer.url }, cliJs);
      expect(listed.code, listed.stderr).toBe(0);
      madeMidRoll = { key: made.stdout.trim(), list: JSON.parse(listed.stdout) };
      await replace(1, next.mainJs);
      await replace(2, next.mainJs);
      // Back: every instance to N, on the schema N+1 left.
      for (const i of [0, 1, 2]) await replace(i, mainJs);
      await sleep(1_000);
    } finally {
      await load.stop();
    }
    const outcomes = load.outcomes;
    const created = outcomes.filter((o) => o.kind === 'create' && o.status === 201).map((o) => (JSON.parse(o.body) as { id: number }).id);
    const stored = await allPetIds(instances[0]!.url, KEY);
    const figures = { requests: outcomes.length, creates: created.length, failed: outcomes.filter((o) => !ok(o)).length, n, n1, steps };
    console.info(`roll both ways: ${JSON.stringify(figures)}`);
    expect(exits).toEqual([0, 0, 0, 0, 0, 0, 0]);
    // A failure says when it came against the steps (and whether its socket had carried a request before), to tell a
    // stopping instance from a balancer closing a kept-alive connection.
    const failure = (o: Outcome) =>
      `${o.kind} ${o.status || o.error} sent at ${o.sentAt - rollStart} ms, ended at ${o.endedAt - rollStart} ms, ${o.reusedSocket ? 'reused' : 'new'} socket: ${o.body.slice(0, 100)}`;
    expect(outcomes.filter((o) => !ok(o)).map(failure), steps.join('; ')).toEqual([]);
    expect(created.length).toBeGreaterThan(20);
    expect(created.filter((id) => !stored.has(id))).toEqual([]);
    // The key N's tool made mid-roll is listed, and serves through the fleet now back on N.
    expect(madeMidRoll!.list.map((row) => row.label)).toContain('mid-roll');
    const answer = await send({ url: `https://127.0.0.1:${balancer.port}`, method: 'GET', path: '/v1/pets?limit=1', headers: { authorization: `Bearer ${madeMidRoll!.key}` } });
    expect(answer.status).toBe(200);
    // N ran on the schema N+1 left, with N+1's migration in it: its pets took the new column's default.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const migrations = await client.query<{ name: string }>('select name from petstore_migration order by name desc limit 1');
      expect(migrations.rows).toEqual([{ name: ADDITIVE.name }]);
      const revisions = await client.query<{ revision: string; n: string }>('select scratch_revision as revision, count(*) as n from pets group by 1');
      expect(revisions.rows).toEqual([{ revision: '1', n: String(stored.size) }]);
      const releases = await client.query<{ release: string }>('select release from petstore_release order by first_opened_at');
      expect(releases.rows.map((row) => row.release)).toEqual([`@petstore/server@${n}`, next.name]);
    } finally {
      await client.end();
    }
  });

  it('refuses N, by name and with the way forward, once a later release has run a contract step', { timeout: 120_000 }, async () => {
    const n = await ownVersion(mainJs);
    // N+2 starts beside the N instances: it migrates, and moves the floor past N.
    const after = await startProcess({ ...env, PORT: '0' }, [], contract.mainJs, 90_000);
    others.push(after);
    expect(await version(after)).toBe(contract.version);
    expect(await after.stop()).toBe(0);
    const refused = await startProcess({ ...env, PORT: '0' }, [], mainJs, 90_000).then(
      () => expect.unreachable('N started on a schema a contract step left'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/server exited with 1/);
    const expected =
      `This database was migrated by ${contract.name}, which admits @petstore/server@99.0.0 and later releases on its schema; ` +
      `this one (@petstore/server@${n}) is older: it does not know ${CONTRACT.name}. Run @petstore/server@99.0.0 or a later one`;
    expect(refused).toContain(expected);
    const tool = await runCli(['keys', 'list'], { DATABASE_URL: bouncer.url }, cliJs);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain(expected);
    // docs/upgrading.md prints the refusal as an operator reads it: the same words, other releases and migration.
    const doc = await readFile(new URL('../../../../docs/upgrading.md', import.meta.url), 'utf8');
    const shown = /<!-- test: contract-refusal -->\n```text\n([\s\S]*?)\n```/.exec(doc)![1]!.replaceAll('\n', ' ');
    const pattern = shown
      .split(/(@petstore\/server@[\d.]+|2027-[\w-]*…)/)
      .map((part, i) => (i % 2 ? '\\S+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    expect(tool.stderr).toMatch(new RegExp(pattern));
  });
});
