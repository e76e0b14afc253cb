import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookRepository, type WebhookRepository } from '../storage/webhook-repository.js';
import { startDeliveryWorker } from './delivery-worker.js';

describe.each(testDatabases)('the delivery worker on $name', (database) => {
  let opened: Awaited<ReturnType<typeof database.open>>;
  beforeAll(async () => {
    opened = await database.open();
  });
  afterAll(() => opened.close());

  it('makes no statement for a change while no endpoint exists, and claims again once one is registered here', async () => {
    const stored = createWebhookRepository(opened.db);
    const reads = { claim: 0, anyEndpoint: 0 };
    // The real repository, its reads counted.
    const repository: WebhookRepository = {
      ...stored,
      claim: (...args) => ((reads.claim += 1), stored.claim(...args)),
      anyEndpoint: () => ((reads.anyEndpoint += 1), stored.anyEndpoint()),
    };
    const worker = startDeliveryWorker({ repository, send: async () => 204, clock: { now: () => Date.now() }, pollMs: 60_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads).toEqual({ claim: 0, anyEndpoint: 1 });
      for (let i = 0; i < 50; i++) {
        worker.nudge();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads).toEqual({ claim: 0, anyEndpoint: 1 });
      const created = await stored.create('k:1', { url: 'https://hooks.example.com/', events: ['pet.created'], secret: 'whsec_AAAA' }, new Date(), 10);
      expect(created).toBeDefined();
      worker.endpointAdded();
      worker.nudge();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads.claim).toBe(1);
    } finally {
      await worker.close();
    }
  });
});
