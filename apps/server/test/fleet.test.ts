import { randomBytes } from 'node:crypto';
import { databaseUrl, openTestRedis, processClock, redisUrl, scratchPostgres, type ProcessClock } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyInstalled, send, startHaproxy, type Balancer } from './haproxy.js';
import { runCli, startProcess, type ServerProcess } from './helpers.js';

const PUBLIC_URL = 'https://api.example.com/v1';

// With REDIS_URL (always in CI) the fleet keeps its quota counters in Redis, as a fleet that outgrew its database's
// write rate would; without it, in PostgreSQL.
describe.runIf(databaseUrl && haproxyInstalled)(`a fleet of three instances behind HAProxy, on one PostgreSQL${redisUrl ? ' and one Redis' : ''}`, () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let counters: Awaited<ReturnType<typeof openTestRedis>> | undefined;
  let instances: ServerProcess[];
  let balancer: Balancer;
  let port: number;
  // The quota counts per clock minute: the instances share a clock the test controls.
  let clock: ProcessClock;
  const env = () => ({ DATABASE_URL: db.url });

  beforeAll(async () => {
    db = await scratchPostgres();
    counters = redisUrl ? await openTestRedis(`petstore_fleet_${randomBytes(6).toString('hex')}`) : undefined;
    const limiter: Record<string, string> = counters
      ? { PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: redisUrl!, PETSTORE_REDIS_KEY_PREFIX: counters.keyPrefix }
      : {};
    clock = await processClock();
    const settings = { ...env(), ...limiter, ...clock.env, PETSTORE_TRUST_PROXY: 'true', PETSTORE_PUBLIC_URL: PUBLIC_URL };
    instances = [await startProcess(settings)];
    instances.push(...(await Promise.all([startProcess(settings), startProcess(settings)])));
    balancer = await startHaproxy(instances.map((instance) => instance.url));
    port = balancer.port;
  });
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await db?.drop();
    await counters?.close();
    await clock?.close();
  });

  const newKey = async (plan: string, label: string) => {
    const created = await runCli(['keys', 'create', '--plan', plan, '--label', label], env());
    expect(created.code, created.stderr).toBe(0);
    return created.stdout.trim();
  };

  it('counts a free key exactly across the instances: 60 of 75 concurrent requests', async () => {
    const key = await newKey('free', 'burst');
    await clock.minuteWithRoom(10);
    const statuses = await Promise.all(
      Array.from({ length: 75 }, () => send(port, '/v1/pets?limit=1', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    if (counters) expect(await counters.client.keys(`${counters.keyPrefix}:m:*`)).not.toHaveLength(0);
  });

  it('replays an Idempotency-Key on every instance', async () => {
    const key = await newKey('pro', 'idempotent');
    const post = () =>
      send(port, '/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'fleet-order-1' },
        body: JSON.stringify({ name: 'Once', categoryId: 2 }),
      });
    const answers = [await post(), await post(), await post(), await post()];
    const ids = answers.map((answer) => (JSON.parse(answer.body) as { id: number }).id);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(ids).size).toBe(1);
    expect(answers.slice(1).map((answer) => answer.headers['idempotent-replayed'])).toEqual(['true', 'true', 'true']);
  });

  it('refuses a revoked key on every instance within one second', async () => {
    const key = await newKey('pro', 'revoked in the fleet');
    const statuses = async () =>
      Promise.all(Array.from({ length: 6 }, () => send(port, '/v1/pets?limit=1', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)));
    expect(await statuses()).toEqual([200, 200, 200, 200, 200, 200]);
    const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as { id: number; label: string }[];
    const revoked = await runCli(['keys', 'revoke', String(rows.find((row) => row.label === 'revoked in the fleet')!.id)], env());
    expect(revoked.code, revoked.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect(await statuses()).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it('links to the public host, with the scheme the balancer reports', async () => {
    const key = await newKey('pro', 'links');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-host': 'evil.example.net' };
    for (const name of ['One', 'Two']) {
      const created = await send(port, '/v1/pets', { method: 'POST', headers, body: JSON.stringify({ name, categoryId: 3, status: 'sold' }) });
      expect(created.headers['location']).toMatch(/^https:\/\/api\.example\.com\/v1\/pets\/\d+$/);
    }
    const page = await send(port, '/v1/pets?limit=1&status=sold', { headers });
    expect(page.headers['link']).toMatch(/^<https:\/\/api\.example\.com\/v1\/pets\?limit=1&status=sold&cursor=[^>]+>; rel="next"$/);
  });

  it('limits requests without a key by the address the balancer forwards, not one the client writes', async () => {
    const from = (address: string, written: string) =>
      send(port, '/v1/pets', { from: address, headers: { 'x-forwarded-for': written } }).then((r) => [r.status, Number(r.headers['x-ratelimit-remaining'])] as const);
    await clock.minuteWithRoom(10);
    const statuses: number[] = [];
    for (let i = 0; i < 62; i++) statuses.push((await from('127.0.0.3', `198.51.100.${i}`))[0]);
    expect(statuses.filter((status) => status === 401)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual([429, 429]);
    const [status, remaining] = await from('127.0.0.4', '198.51.100.1');
    expect(status).toBe(401);
    expect(remaining).toBe(59);
  });

  it('keeps serving a key on every instance once it succeeded from an address that made-up keys then hold over its limit', async () => {
    const key = await newKey('pro', 'behind a shared address');
    const from = '127.0.0.6';
    const withKey = () => send(port, '/v1/pets?limit=1', { from, headers: { authorization: `Bearer ${key}` } });
    const madeUp = (i: number) => send(port, '/v1/pets', { from, headers: { authorization: `Bearer made-up-key-${i}-0000000000` } });
    const dayRemaining = (answer: { headers: Record<string, string | string[] | undefined> }) =>
      Number(/"day";r=(\d+)/.exec(String(answer.headers['ratelimit']))?.[1]);
    await clock.minuteWithRoom(15);
    // Round robin: the key succeeds on one instance; the made-up keys then arrive on all three.
    const first = await withKey();
    expect(first.status).toBe(200);
    const refused: number[] = [];
    for (let i = 0; i < 61; i++) refused.push((await madeUp(i)).status);
    expect(refused.slice(59)).toEqual([401, 429]);
    // Past the second an instance trusts what it read of the address, so every one of them knows it is over.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = [];
    for (let i = 0; i < 6; i++) after.push(await withKey());
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(after.map(dayRemaining)).toEqual([9_998, 9_997, 9_996, 9_995, 9_994, 9_993]);
    expect((await Promise.all([madeUp(61), madeUp(62), madeUp(63)])).map((answer) => answer.status)).toEqual([429, 429, 429]);
  });
});
