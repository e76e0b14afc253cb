import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli-run.js';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send, sleep } from './load.js';
import { startThrowawayPostgres, throwawayPostgresUnsupported, type ThrowawayPostgres } from './throwaway-postgres.js';

// In CI (.ci/run runs as root after installing PostgreSQL) this test must run: there it fails instead.
const unsupported = process.env.CI ? undefined : throwawayPostgresUnsupported();
if (unsupported) console.warn(`skipping the fleet usage test: ${unsupported}`);

const PRO = 'usage-fleet-pro-key-0123456789';
// Two requests a minute and a ban on the first request past the refused one: 429 and ban within a few requests.
const SMALL = 'usage-fleet-small-key-0123456789';
const HEADER = 'day,key_id,principal_id,label,plan,operation,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids';
/** The ledger writes what it counted every 5 s (usage-ledger.ts): the outage outlasts one write, which must fail. */
const LEDGER_FLUSH_MS = 5_000;
/** The authenticator trusts a key look-up this long (authenticator.ts); the limiter its reads alike (create-quota.ts). */
const KEY_CACHE_MS = 1_000;

/** When a request was sent: the mix, in flight as PostgreSQL stopped, while it was down, or waiting for it to return. */
type Phase = 'mix' | 'in flight' | 'down' | 'recovery';
type Operation = 'listPets' | 'createPet' | 'getPet';

/** One request as the client saw it. */
interface Sent {
  phase: Phase;
  instance: number;
  token: string;
  operation: Operation;
  reqId: string;
  status: number;
  /** The error's code, for an error. */
  code: string | undefined;
  day: string;
}

/** The ledger's column a request counts in, from what the client saw (the rule of `outcomeOf` in pet-store.ts). */
function outcomeOf({ status, code }: Sent) {
  if (status < 400) return 'served';
  if (code === 'api_key_banned') return 'banned';
  if (status === 429) return 'rateLimited';
  return status >= 500 ? 'serverErrors' : 'clientErrors';
}
const OUTCOMES = ['served', 'rateLimited', 'banned', 'clientErrors', 'serverErrors'] as const;

/** Polls `check` every 20 ms until it holds (10 s at most). */
async function until(what: string, check: () => Promise<boolean>) {
  for (const deadline = Date.now() + 10_000; !(await check()); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

describe.skipIf(unsupported)('petstore usage after two instances on one PostgreSQL served, refused, banned and failed requests', () => {
  let postgres: ThrowawayPostgres;
  let env: Record<string, string>;
  const instances: ServerProcess[] = [];
  const sent: Sent[] = [];
  /** Each request's key as the service's request log line names it (`keyId`), by request id. */
  const logged = new Map<string, number | undefined>();
  const exitCodes: (number | null)[] = [];
  let sequence = 0;

  /** Sends one request of `operation` with `token` to an instance, and notes how it ended. */
  async function call(phase: Phase, instance: number, token: string, operation: Operation, request: { path?: string; body?: unknown } = {}) {
    const reqId = `usage-fleet-${++sequence}`;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const outcome = await send({
      url: instances[instance]!.url,
      method: body === undefined ? 'GET' : 'POST',
      path: request.path ?? '/v1/pets',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': reqId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
      timeoutMs: 15_000,
    });
    const code = outcome.status >= 400 ? (JSON.parse(outcome.body) as { code: string }).code : undefined;
    const day = new Date(outcome.endedAt).toISOString().slice(0, 10);
    sent.push({ phase, instance, token, operation, reqId, status: outcome.status, code, day });
    return outcome.status;
  }

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('create database usage_fleet');
    await admin.end();
    const url = postgres.url.replace(/\/postgres$/, '/usage_fleet');
    env = { DATABASE_URL: url };
    // The default limiter with DATABASE_URL keeps its counters in the same database: the small key's minute and its
    // ban are the fleet's, not each instance's. No drain after SIGTERM: the test sends nothing then.
    const serverEnv = {
      DATABASE_URL: url,
      PETSTORE_API_KEYS: `${PRO}:pro,${SMALL}:enterprise:2:1000`,
      PETSTORE_BAN_THRESHOLD: '1',
      PETSTORE_DRAIN_MS: '0',
    };
    // One first, so the second finds the schema migrated.
    instances.push(await startProcess(serverEnv));
    instances.push(await startProcess(serverEnv));

    // The mix, spread over both instances.
    for (let i = 0; i < 3; i++) await call('mix', i % 2, PRO, 'listPets');
    await call('mix', 1, PRO, 'createPet', { body: { name: 'Rex', categoryId: 1 } });
    await call('mix', 0, PRO, 'createPet', { body: { name: '', categoryId: 1 } });
    await call('mix', 1, PRO, 'getPet', { path: '/v1/pets/999999' });
    // The small key until it has been banned twice (a minute that ends meanwhile only makes it take longer).
    for (let i = 0; i < 30 && sent.filter((s) => s.code === 'api_key_banned').length < 2; i++) await call('mix', i % 2, SMALL, 'listPets');

    // A request of each instance has its key (verified and counted) when the database goes away under it: the
    // test's lock on `pets` holds each at its query while its session is ended as a fast stop ends every session
    // (57P01). Ended before the stop, with the lock still held: in the stop itself the lock's end can race the
    // waiter's, and a waiter that wins answers 200.
    const locker = new pg.Client({ connectionString: url });
    locker.on('error', () => {}); // the stop ends this session too
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table pets in access exclusive mode');
    // A page no one read yet (limit=7), so no instance answers it from its page cache.
    const inFlight = [0, 1].map((i) => call('in flight', i, PRO, 'listPets', { path: '/v1/pets?limit=7' }));
    await until('both requests wait for the lock', async () => {
      const { rows } = await locker.query<{ waiting: string }>("select count(*) as waiting from pg_locks where relation = 'pets'::regclass and not granted");
      return Number(rows[0]!.waiting) === inFlight.length;
    });
    await locker.query("select pg_terminate_backend(pid) from pg_locks where relation = 'pets'::regclass and not granted");
    await Promise.all(inFlight);
    const stoppedAt = Date.now();
    await postgres.stop('fast');
    await locker.end().catch(() => {});

    // While it is down: once the key look-ups the instances made before the stop are older than their cache, a
    // request can no longer be told to be the key's. Until the ledger has tried (and failed) to write, keep asking.
    await sleep(Math.max(0, stoppedAt + KEY_CACHE_MS + 100 - Date.now()));
    for (let round = 0; round === 0 || Date.now() < stoppedAt + LEDGER_FLUSH_MS + 500; round++) {
      await Promise.all([
        call('down', round % 2, PRO, 'listPets'),
        call('down', (round + 1) % 2, PRO, 'createPet', { body: { name: 'Rex', categoryId: 1 } }),
      ]);
      await sleep(250);
    }
    await postgres.start();
    // Each instance asked until it serves again (its pool reconnects on its own).
    await Promise.all([0, 1].map((i) => until(`instance ${i} serves again`, async () => (await call('recovery', i, PRO, 'listPets')) === 200)));

    // SIGTERM: each instance writes what its ledger still holds as it closes.
    exitCodes.push(...(await Promise.all(instances.map((instance) => instance.stop('SIGTERM')))));
    for (const instance of instances) {
      for (const line of instance.stdout().split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; reqId?: string; keyId?: number };
        if (entry.msg === 'request' && entry.reqId !== undefined) logged.set(entry.reqId, entry.keyId);
      }
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    await postgres?.destroy();
  });

  it('saw every outcome, and 503 unavailable while PostgreSQL was down', () => {
    expect(exitCodes, instances.map((i) => i.stderr()).join('\n')).toEqual([0, 0]);
    // Every request was answered and logged, on both instances.
    expect(sent.filter((s) => s.status === 0 || !logged.has(s.reqId))).toEqual([]);
    expect(new Set(sent.map((s) => s.instance))).toEqual(new Set([0, 1]));
    const seen = new Set(sent.map(outcomeOf));
    expect([...OUTCOMES].filter((o) => !seen.has(o))).toEqual([]);
    expect(sent.filter((s) => s.status === 400 && s.operation === 'createPet')).toHaveLength(1);
    expect(sent.filter((s) => s.status === 404 && s.operation === 'getPet')).toHaveLength(1);

    // The request log names the sent key on every answer below 500, so it can stand witness for the 503s.
    const keyOf = new Map<string, number | undefined>();
    for (const s of sent) if (s.status < 500) keyOf.set(s.token, keyOf.get(s.token) ?? logged.get(s.reqId));
    expect(sent.filter((s) => s.status < 500 && logged.get(s.reqId) !== keyOf.get(s.token))).toEqual([]);
    expect(new Set(keyOf.values()).size).toBe(2);

    const during = sent.filter((s) => s.phase === 'in flight' || s.phase === 'down');
    expect(during.map((s) => `${s.status} ${s.code}`)).toEqual(during.map(() => '503 unavailable'));
    // The requests that had their key when the database went away are the key's.
    const inFlight = sent.filter((s) => s.phase === 'in flight');
    expect(inFlight.map((s) => logged.get(s.reqId))).toEqual(inFlight.map(() => keyOf.get(PRO)));
    // With the database away no key can be verified: these fail before their key is known (the ledger counts them
    // under the key their token named when last looked up; see the CSV below).
    const down = sent.filter((s) => s.phase === 'down');
    expect(down.length).toBeGreaterThanOrEqual(4);
    console.info(
      `usage fleet: ${sent.length} requests; ${during.length} answered 503 while PostgreSQL stopped ` +
        `(${inFlight.length} in flight, ${down.length} while down); ` +
        `recovery took ${sent.filter((s) => s.phase === 'recovery').length} requests`,
    );
  });

  it('prints exactly the counts the clients saw, per key, day, plan and operation, as CSV', async () => {
    const keys = await run(['keys', 'list', '--json'], env);
    expect(keys.code, keys.stderr).toBe(0);
    const records = JSON.parse(keys.stdout) as { id: number; label: string; plan: string }[];
    const idOf = (token: string) => records.find((r) => r.plan === (token === PRO ? 'pro' : 'enterprise'))!.id;

    // What the clients saw, counted per key, day, plan and operation: every answer under the key it was sent with,
    // a 503 of the outage too (both keys had been looked up before it).
    const counts = new Map<string, Record<(typeof OUTCOMES)[number], number>>();
    for (const s of sent) {
      const keyId = idOf(s.token);
      const record = records.find((r) => r.id === keyId)!;
      const row = `${s.day},${keyId},,${record.label},${record.plan},${s.operation}`;
      const count = counts.get(row) ?? { served: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 };
      count[outcomeOf(s)]++;
      counts.set(row, count);
    }
    // The ledger's order: day, key, plan, operation.
    const expected = [...counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      // Then unmetered (no getUsage was sent) and the lineage's key ids (no key was rolled: its own id).
      .map(([row, count]) => [row, ...OUTCOMES.map((o) => count[o]), 0, row.split(',')[1]].join(','));

    const { code, stdout, stderr } = await run(['usage', '--format', 'csv'], env);
    expect(code, stderr).toBe(0);
    expect(stdout.split('\r\n').filter(Boolean)).toEqual([HEADER, ...expected]);
  });
});
