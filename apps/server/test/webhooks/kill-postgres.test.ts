import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { call, pidOfPort, startReceiver, until } from './receiver.js';

// DECISIONS "Events", nothing lost: two instances on one PostgreSQL database; the one that holds a delivery is killed
// (-9) mid-send, and the other sends it once the lease is over, with the same webhook-id, and only then.
const KEY = 'webhook-kill-postgres-0123456789';
const LEASE_MS = 20_000;

describe.skipIf(!databaseUrl)('a webhook in flight when the instance sending it is killed (-9), on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let instances: ServerProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterAll(async () => {
    for (const instance of instances) await instance.stop('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  it('is delivered by the other instance once the lease is over, once, with the same webhook-id', { timeout: 60_000 }, async () => {
    db = await scratchPostgres();
    const env = {
      DATABASE_URL: db.url,
      PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000`,
      PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      PETSTORE_WEBHOOK_LEASE_MS: String(LEASE_MS),
    };
    // The first POST is held open, unanswered: the send is in flight when its instance dies. Later ones get 200.
    receiver = await startReceiver((delivery) => (delivery.seen === 0 ? 'hold' : 200));
    instances = [await startProcess(env)];
    instances.push(await startProcess(env));
    const [a, b] = instances as [ServerProcess, ServerProcess];
    expect((await call(a.url, KEY, 'POST', '/webhooks', { url: receiver.url, events: ['pet.created'] })).status).toBe(201);
    // Made through either: the instance that sends it is the one whose connection the receiver holds.
    const created = await call(b.url, KEY, 'POST', '/pets', { name: 'Survivor', categoryId: 1 });
    expect(created.status).toBe(201);
    await until('the first send', () => receiver.held() === 1, 10_000);
    const sent = receiver.deliveries[0]!;
    expect(sent).toMatchObject({ type: 'pet.created', data: { id: created.body.id } });
    const holderPid = await pidOfPort(sent.remotePort);
    const holder = instances.find((instance) => instance.child.pid === holderPid);
    expect(holder, `the sender (pid ${holderPid}) is one of the instances`).toBeDefined();
    const other = holder === a ? b : a;

    holder!.child.kill('SIGKILL');
    await holder!.closed;
    const killedAt = Date.now();
    expect(receiver.deliveries, 'nothing else was sent while the holder lived').toHaveLength(1);

    await until('the delivery by the other instance', () => receiver.acks.size === 1, LEASE_MS + 15_000);
    const again = receiver.deliveries.at(-1)!;
    expect(again).toMatchObject({ id: sent.id, type: 'pet.created', data: { id: created.body.id }, seen: 1, answered: 200 });
    expect(await pidOfPort(again.remotePort)).toBe(other.child.pid);
    // Not before the lease was over: the other instance waited for it, though it polled every 5 s meanwhile.
    expect(again.at - sent.at).toBeGreaterThanOrEqual(LEASE_MS - 1_000);
    console.info(`kill -9 to delivery by the other instance: ${again.at - killedAt} ms (lease ${LEASE_MS} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.deliveries).toHaveLength(2);
    expect([...receiver.acks]).toEqual([[sent.id, 1]]);
    const [endpoint] = (await call(other.url, KEY, 'GET', '/webhooks')).body as unknown as { id: number }[];
    const log = await call(other.url, KEY, 'GET', `/webhooks/${endpoint!.id}/deliveries`);
    expect(log.body).toEqual([expect.objectContaining({ eventId: sent.id, status: 'delivered', attempts: 2, responseStatus: 200 })]);
  });
});
