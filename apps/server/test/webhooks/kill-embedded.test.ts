import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { call, startReceiver, until } from './receiver.js';

// DECISIONS "Events", nothing lost: a change acknowledged before a kill -9 has its event, and the next start on the
// same folder delivers it, with the same webhook-id, at once: the folder is held by one process at a time, so the dead
// process's lease on it is ended at the start, not waited out.
const KEY = 'webhook-kill-embedded-0123456789';
const LEASE_MS = 20_000;

describe('a webhook in flight when the embedded server is killed (-9)', () => {
  const servers: ServerProcess[] = [];
  let dataDir: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    const server = await startProcess({
      PETSTORE_DATA_DIR: dataDir,
      PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000`,
      PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      PETSTORE_WEBHOOK_LEASE_MS: String(LEASE_MS),
    });
    servers.push(server);
    return server;
  };

  it('is delivered after the restart on the same folder, once, with the same webhook-id', { timeout: 60_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-webhook-kill-'));
    // The first POST is held open, unanswered: the send is in flight when the process dies. Later ones get 200.
    receiver = await startReceiver((delivery) => (delivery.seen === 0 ? 'hold' : 200));
    const first = await start();
    expect((await call(first.url, KEY, 'POST', '/webhooks', { url: receiver.url, events: ['pet.created'] })).status).toBe(201);
    const created = await call(first.url, KEY, 'POST', '/pets', { name: 'Survivor', categoryId: 1 });
    expect(created.status).toBe(201);
    await until('the first send', () => receiver.held() === 1, 10_000);
    const sent = receiver.deliveries[0]!;
    expect(sent).toMatchObject({ type: 'pet.created', data: { id: created.body.id } });

    first.child.kill('SIGKILL');
    await first.closed;
    const killedAt = Date.now();
    await until('the held connection to close', () => receiver.held() === 0, 5_000);

    const second = await start();
    // Sent as the restarted worker first looks, long before the dead process's lease (20 s from the first send) ends.
    await until('the delivery after the restart', () => receiver.acks.size === 1, 10_000);
    const again = receiver.deliveries.at(-1)!;
    expect(again).toMatchObject({ id: sent.id, type: 'pet.created', data: { id: created.body.id }, seen: 1, answered: 200 });
    expect(again.at - sent.at).toBeLessThan(LEASE_MS);
    console.info(`kill -9 to delivery: ${again.at - killedAt} ms (lease ${LEASE_MS} ms)`);
    // Delivered once: recorded so, and sent no more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.deliveries).toHaveLength(2);
    expect([...receiver.acks]).toEqual([[sent.id, 1]]);
    const endpoints = await call(second.url, KEY, 'GET', '/webhooks');
    const [endpoint] = endpoints.body as unknown as { id: number }[];
    const log = await call(second.url, KEY, 'GET', `/webhooks/${endpoint!.id}/deliveries`);
    expect(log.body).toEqual([expect.objectContaining({ eventId: sent.id, status: 'delivered', attempts: 2, responseStatus: 200 })]);
    expect(await second.stop()).toBe(0);
  });
});
