import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPetStore } from './index.js';

const KEY = 'sk_test_deliver_false_0123456789';
const apiKeys = [{ key: KEY, plan: 'enterprise' as const }];

describe('openPetStore with webhooks: { deliver: false } (a key tool, a script)', () => {
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  let dataDir: string;
  beforeAll(async () => {
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    dataDir = await mkdtemp(join(tmpdir(), 'deliver-false-'));
  });
  afterAll(async () => {
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends nothing, and leaves the due deliveries to the service, which sends them', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const quiet = await openPetStore({ dataDir, apiKeys, webhooks: { allowPrivate: true, deliver: false, pollMs: 20 } });
    try {
      await quiet.store.createWebhook({ url, events: ['pet.created'] }, { apiKey: KEY });
      await quiet.store.createPet({ name: 'Quiet', categoryId: 1 }, { apiKey: KEY });
      // Ten of its polls: a worker would have sent it at once, on the create's nudge.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received).toEqual([]);
    } finally {
      await quiet.close();
    }
    // The event was recorded, and is due: a store that delivers sends it.
    const service = await openPetStore({ dataDir, apiKeys, webhooks: { allowPrivate: true, pollMs: 20 } });
    try {
      await expect.poll(() => received.length, { timeout: 5_000 }).toBe(1);
      expect(received[0]).toContain('"Quiet"');
    } finally {
      await service.close();
    }
  });
});
