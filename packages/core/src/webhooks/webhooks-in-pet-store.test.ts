import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookTransport, testDatabases } from '@petstore/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, type PetStore } from '../index.js';

/** A receiver on loopback: every POST it gets, answered with the next status of `answers` (200 when none is left). */
async function startReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string; at: number }[] = [];
  const answers: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, answers, close: () => new Promise((r) => server.close(r)) };
}

/** Polls until `check` holds (refreshing what it reads with `read` first), or fails after `ms`. */
const until = async (check: () => boolean, ms = 5000, read?: () => Promise<void>) => {
  const end = Date.now() + ms;
  for (await read?.(); !check(); await read?.()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(testDatabases)('webhooks through the store on $name', (database) => {
  let store: PetStore;
  let close: () => Promise<void>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let apiKey: string;

  beforeAll(async () => {
    const opened = await database.open();
    store = createPetStore({ db: opened.db, webhooks: { allowPrivate: true, transport: createWebhookTransport({ allowPrivate: true }), retryScheduleMs: [50, 100], pollMs: 20 } });
    receiver = await startReceiver();
    apiKey = (await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } })).key;
    close = async () => {
      await store.close();
      await receiver.close();
      await opened.close();
    };
  });
  afterAll(() => close());
  afterEach(() => {
    receiver.received.length = 0;
  });

  it('delivers every change as a signed event that standardwebhooks verifies', async () => {
    const { data: endpoint } = await store.createWebhook({ url: receiver.url, events: ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.completed', 'order.cancelled'] }, { apiKey });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const { data: pet } = await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, { apiKey });
    await store.updatePet({ petId: pet.id, name: 'Rexa' }, { apiKey });
    const { data: order } = await store.placeOrder({ petId: pet.id }, { apiKey });
    await store.completeOrder({ orderId: order.id }, { apiKey });
    const { data: other } = await store.createPet({ name: 'Tom', categoryId: 1, status: 'available' }, { apiKey });
    const { data: second } = await store.placeOrder({ petId: other.id }, { apiKey });
    await store.cancelOrder({ orderId: second.id }, { apiKey });
    await store.deletePet({ petId: other.id }, { apiKey });
    await until(() => receiver.received.length >= 12);
    const verifier = new Webhook(endpoint.secret);
    const events = receiver.received.map(({ headers, body }) => verifier.verify(body, headers as Record<string, string>) as { type: string; data: { id: number } });
    // Placing, completing and cancelling an order change its pet too: each also gives a pet.updated.
    expect(events.map((event) => event.type).sort()).toEqual(
      ['pet.created', 'pet.updated', 'order.placed', 'pet.updated', 'order.completed', 'pet.updated'].concat(
        ['pet.created', 'order.placed', 'pet.updated', 'order.cancelled', 'pet.updated', 'pet.deleted'],
      ).sort(),
    );
    expect(events.find((event) => event.type === 'order.completed')).toMatchObject({ data: { id: order.id, petId: pet.id, status: 'completed' } });
    expect(events.find((event) => event.type === 'pet.deleted')).toMatchObject({ data: { id: other.id, name: 'Tom', status: 'available' } });
    await store.deleteWebhook({ webhookId: endpoint.id }, { apiKey });
  });

  it('retries a failing receiver on the schedule, with the same webhook-id, and logs each attempt', async () => {
    const { data: endpoint } = await store.createWebhook({ url: receiver.url, events: ['pet.created'] }, { apiKey });
    receiver.answers.push(500, 503);
    const { data: pet } = await store.createPet({ name: 'Retry', categoryId: 1, status: 'available' }, { apiKey });
    await until(() => receiver.received.filter((r) => r.body.includes('"Retry"')).length >= 3);
    const attempts = receiver.received.filter((r) => r.body.includes('"Retry"'));
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // The schedule is 50 ms, then 100 ms.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(45);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(95);
    // The third attempt is recorded once its answer is in: wait for the log to say so.
    let delivery: { status: string } | undefined;
    await until(() => delivery?.status === 'delivered', 5000, async () => {
      delivery = (await store.listWebhookDeliveries({ webhookId: endpoint.id }, { apiKey })).data.find((one) => one.eventType === 'pet.created');
    });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, responseStatus: 200 });
    expect(JSON.parse(attempts[2]!.body)).toMatchObject({ type: 'pet.created', data: { id: pet.id } });
    await store.deleteWebhook({ webhookId: endpoint.id }, { apiKey });
  });

  it('redelivers an event on request with the same webhook-id, and keeps endpoints their owner\'s', async () => {
    const { data: endpoint } = await store.createWebhook({ url: receiver.url, events: ['pet.created'] }, { apiKey });
    await store.createPet({ name: 'Again', categoryId: 1, status: 'available' }, { apiKey });
    await until(() => receiver.received.some((r) => r.body.includes('"Again"')));
    const { data: log } = await store.listWebhookDeliveries({ webhookId: endpoint.id }, { apiKey });
    const { data: again } = await store.redeliverWebhook({ webhookId: endpoint.id, deliveryId: log[0]!.id }, { apiKey });
    expect(again).toMatchObject({ eventId: log[0]!.eventId, status: 'pending', attempts: 0 });
    await until(() => receiver.received.filter((r) => r.body.includes('"Again"')).length === 2);
    const ids = receiver.received.filter((r) => r.body.includes('"Again"')).map((r) => r.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    const stranger = (await store.apiKeys.create({ plan: 'free' })).key;
    await expect(store.getWebhook({ webhookId: endpoint.id }, { apiKey: stranger })).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.redeliverWebhook({ webhookId: endpoint.id, deliveryId: log[0]!.id }, { apiKey: stranger })).rejects.toMatchObject({ code: 'not_found' });
    expect((await store.listWebhooks({}, { apiKey: stranger })).data).toEqual([]);
    await store.deleteWebhook({ webhookId: endpoint.id }, { apiKey });
  });

  it('lets deliveries wait while changes keep the event loop busy, then sends every one', async () => {
    // A store of its own (on a database of its own), whose worker may take deliveries only once a minute while busy
    // (busier than half the time: a loaded machine's slow statements must not read as idle).
    const fresh = await database.open();
    const busyStore = createPetStore({
      db: fresh.db,
      webhooks: {
        allowPrivate: true,
        transport: createWebhookTransport({ allowPrivate: true }),
        concurrency: 2,
        pollMs: 20,
        busyUtilization: 0.5,
        busyClaimEveryMs: 60_000,
      },
    });
    try {
      const key = (await busyStore.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } })).key;
      await busyStore.createWebhook({ url: receiver.url, events: ['pet.created'] }, { apiKey: key });
      const delivered = (name: string) => receiver.received.filter((r) => r.body.includes(`"${name}"`)).length;
      /** Creates pets named `name` for `ms`, the event loop kept busy about 90% of the time between them. */
      const busyFor = async (name: string, ms: number) => {
        let created = 0;
        for (const end = Date.now() + ms; Date.now() < end; created += 1) {
          await busyStore.createPet({ name, categoryId: 1 }, { apiKey: key });
          const spin = Date.now() + 60;
          while (Date.now() < spin);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return created;
      };
      // Load first, so that the worker has measured it (what it takes before that is not counted here)...
      const warm = await busyFor('Warm', 600);
      // ...then the pets counted: none of theirs is sent while the load lasts.
      const created = await busyFor('Busy', 1_500);
      const whileBusy = delivered('Busy');
      expect(created).toBeGreaterThan(10);
      expect(whileBusy).toBe(0);
      await until(() => delivered('Busy') >= created && delivered('Warm') >= warm, 10_000);
      expect(delivered('Busy')).toBe(created);
    } finally {
      await busyStore.close();
      await fresh.close();
    }
  });

  it('keeps at most 10 endpoints per owner, however many registrations race', async () => {
    const owner = (await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } })).key;
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => store.createWebhook({ url: receiver.url, events: ['pet.deleted'] }, { apiKey: owner })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'invalid_request' });
    expect((await store.listWebhooks({}, { apiKey: owner })).data).toHaveLength(10);
  });
});

