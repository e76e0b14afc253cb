import { execFile } from 'node:child_process';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { pgbouncerUnsupported, startPgBouncer, type PgBouncer } from '../pgbouncer.js';
import { call, startReceiver, until } from './receiver.js';

// DECISIONS "Events", nothing lost and nothing doubled: two instances on one PostgreSQL through PgBouncer in
// transaction pooling, 2,000 changes made through both, a receiver that fails every 7th first attempt: every event
// arrives, and none is acknowledged twice except by an explicit redelivery. In CI (.ci/run installs PgBouncer) it
// must run.
const unsupported = !databaseUrl ? 'DATABASE_URL is not set' : process.env.CI ? undefined : pgbouncerUnsupported();
if (unsupported) console.warn(`skipping webhooks of two instances through PgBouncer: ${unsupported}`);

const KEY = 'webhook-fleet-key-0123456789abcd';
/** Pets, each changed four times: created, renamed twice, then ordered (even ones) or deleted (odd ones). */
const PETS = 500;
/** Chains of changes in flight at once. */
const CONCURRENCY = 16;

describe.skipIf(unsupported)('webhooks from two instances on one PostgreSQL behind PgBouncer in transaction pooling', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let instances: ServerProcess[] = [];
  let direct: pg.Client;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The ids answered 500 at their first attempt. */
  const failedFirst = new Set<string>();

  beforeAll(async () => {
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url);
    const env = {
      DATABASE_URL: new URL(new URL(db.url).pathname, bouncer.url).toString(),
      PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000`,
      PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: '200,500,1000,2000,5000',
    };
    instances = [await startProcess(env)];
    instances.push(await startProcess(env));
    direct = new pg.Client({ connectionString: db.url });
    direct.on('error', () => {});
    await direct.connect();
    let firsts = 0;
    receiver = await startReceiver((delivery) => {
      if (delivery.seen > 0 || ++firsts % 7 !== 0) return 200;
      failedFirst.add(delivery.id);
      return 500;
    });
  });
  afterAll(async () => {
    await direct?.end();
    for (const instance of instances) await instance.stop('SIGKILL');
    await receiver?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  it('delivers every event of 2,000 changes made through both, none acknowledged twice; a redelivery sends one again', { timeout: 90_000 }, async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const endpoint = await call(a.url, KEY, 'POST', '/webhooks', { url: receiver.url, events: ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed'] });
    expect(endpoint.status).toBe(201);

    const started = Date.now();
    const statuses: number[] = [];
    const chain = async (i: number) => {
      const [x, y] = i % 2 === 0 ? [a, b] : [b, a];
      const created = await call(x.url, KEY, 'POST', '/pets', { name: `Pet ${i}`, categoryId: 1 });
      statuses.push(created.status);
      const petId = created.body.id;
      statuses.push((await call(y.url, KEY, 'PATCH', `/pets/${petId}`, { name: `Pet ${i} b` })).status);
      statuses.push((await call(x.url, KEY, 'PATCH', `/pets/${petId}`, { name: `Pet ${i} c` })).status);
      statuses.push((i % 2 === 0 ? await call(y.url, KEY, 'POST', '/store/orders', { petId }) : await call(y.url, KEY, 'DELETE', `/pets/${petId}`)).status);
    };
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < PETS) await chain(next++);
    }));
    const changed = Date.now();
    expect(statuses).toHaveLength(4 * PETS);
    expect(statuses.filter((status) => status >= 300)).toEqual([]);

    // The outbox holds the events of exactly the changes made: 2,250 for 2,000 changes (an order changes its pet too).
    const { rows: events } = await direct.query<{ id: string; type: string; at: string }>(
      'select id, type, extract(epoch from created_at) * 1000 as at from webhook_events',
    );
    const byType = (type: string) => events.filter((event) => event.type === type).length;
    expect({ created: byType('pet.created'), updated: byType('pet.updated'), deleted: byType('pet.deleted'), placed: byType('order.placed') }).toEqual({
      created: PETS,
      updated: 2 * PETS + PETS / 2,
      deleted: PETS / 2,
      placed: PETS / 2,
    });
    const pending = async () => Number((await direct.query<{ n: string }>(`select count(*) as n from webhook_deliveries where status <> 'delivered'`)).rows[0]!.n);
    await until('every event acknowledged', () => receiver.acks.size >= events.length, 60_000);
    await until('every delivery recorded as delivered', async () => (await pending()) === 0, 10_000);
    const delivered = Date.now();

    // Every event arrived, each acknowledged once; the only other POSTs are the planned 500s, each retried once.
    expect(new Set(receiver.acks.keys())).toEqual(new Set(events.map((event) => event.id)));
    expect([...receiver.acks.values()].filter((count) => count !== 1)).toEqual([]);
    expect(failedFirst.size).toBe(Math.floor(events.length / 7));
    expect(receiver.deliveries.filter((delivery) => delivery.answered !== 200).every((delivery) => failedFirst.has(delivery.id) && delivery.seen === 0)).toBe(true);
    expect(receiver.deliveries).toHaveLength(events.length + failedFirst.size);
    const { rows: attempts } = await direct.query<{ attempts: number; n: string }>('select attempts, count(*) as n from webhook_deliveries group by attempts order by attempts');
    expect(attempts.map((row) => [row.attempts, Number(row.n)])).toEqual([
      [1, events.length - failedFirst.size],
      [2, failedFirst.size],
    ]);
    const senders = await new Promise<string>((resolve) =>
      execFile('ss', ['-Htnp', 'state', 'established', `dport = :${new URL(receiver.url).port}`], (_error, stdout) => resolve(stdout ?? '')),
    );
    const senderPids = new Set([...senders.matchAll(/pid=([0-9]+)/g)].map((match) => Number(match[1])));
    // From each change to its event's first POST (the same machine's clock): the median and the slowest.
    const firstAt = new Map<string, number>();
    for (const delivery of receiver.deliveries) if (delivery.seen === 0) firstAt.set(delivery.id, delivery.at);
    const waits = events.map((event) => firstAt.get(event.id)! - Number(event.at)).sort((x, y) => x - y);
    const retriedAt = new Map<string, number>();
    for (const delivery of receiver.deliveries) if (delivery.seen === 1) retriedAt.set(delivery.id, delivery.at);
    const retryWaits = [...failedFirst].map((id) => retriedAt.get(id)! - firstAt.get(id)!).sort((x, y) => x - y);
    console.info(
      `${4 * PETS} changes in ${changed - started} ms; ${events.length} events, first POST after a median ${Math.round(waits[waits.length >> 1]!)} ms, ` +
        `at most ${Math.round(waits.at(-1)!)} ms (${waits.filter((wait) => wait > 1000).length} over 1 s); ${failedFirst.size} first attempts answered 500 and retried ` +
        `(the schedule's 200 ms: after a median ${retryWaits[retryWaits.length >> 1]} ms, at most ${retryWaits.at(-1)} ms, ${retryWaits.filter((wait) => wait > 1000).length} over 1 s); ` +
        `all acknowledged ${delivered - changed} ms after the last change; ${receiver.deliveries.length} POSTs; ` +
        `instances with a connection to the receiver now: ${instances.filter((instance) => senderPids.has(instance.child.pid!)).length}`,
    );

    // An explicit redelivery: the same event again, with the same webhook-id, through the other instance.
    const [last] = (await call(b.url, KEY, 'GET', `/webhooks/${endpoint.body.id}/deliveries?limit=1`)).body as unknown as { id: number; eventId: string }[];
    const again = await call(b.url, KEY, 'POST', `/webhooks/${endpoint.body.id}/deliveries/${last!.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId: last!.eventId, status: 'pending' });
    await until('the redelivery', () => receiver.acks.get(last!.eventId) === 2, 10_000);
    await until('the redelivery recorded', async () => (await pending()) === 0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.deliveries).toHaveLength(events.length + failedFirst.size + 1);
    expect([...receiver.acks.values()].reduce((sum, count) => sum + count, 0)).toBe(events.length + 1);
  });
});
