import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookTransport, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, type PetStore } from '../index.js';
import { isPublicAddress } from './address-rule.js';

describe('the address rule', () => {
  it('takes global unicast addresses only', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    const inside = [
      '127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:8.8.8.8',
      '64:ff9b::7f00:1', '2002:7f00:1::', 'not an address',
    ];
    for (const address of inside) expect(isPublicAddress(address), address).toBe(false);
  });
});

// The rule through the store: names resolved by a resolver of the test's own (as dnsmasq would answer them).
describe('webhook targets, without PETSTORE_WEBHOOKS_ALLOW_PRIVATE', () => {
  const names = new Map<string, string>([['public.test', '93.184.215.14'], ['inside.test', '127.0.0.1']]);
  let store: PetStore;
  let apiKey: string;
  let close: () => Promise<void>;
  let reached = 0;
  let port = 0;

  beforeAll(async () => {
    const opened = await testDatabases[0]!.open();
    const listener = createServer((_req, res) => {
      reached++;
      res.end();
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    port = (listener.address() as AddressInfo).port;
    const resolve = async (host: string) => {
      const address = names.get(host);
      if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return [{ address, family: 4 }];
    };
    const transport = createWebhookTransport({ allowPrivate: false, resolve });
    store = createPetStore({ db: opened.db, webhooks: { transport, retryScheduleMs: [], pollMs: 20 } });
    apiKey = (await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } })).key;
    close = async () => {
      await store.close();
      listener.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('refuses at registration: http://, private, link-local, metadata, IPv4-mapped, and names that resolve inside', async () => {
    const refused = [
      `http://127.0.0.1:${port}/`,
      'https://127.0.0.1/',
      'https://10.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::1]/',
      `https://inside.test:${port}/`,
      'https://nowhere.test/',
    ];
    for (const url of refused) {
      await expect(store.createWebhook({ url, events: ['pet.created'] }, { apiKey }), url).rejects.toMatchObject({
        code: 'invalid_request',
        details: [{ path: 'url' }],
      });
    }
    expect((await store.createWebhook({ url: 'https://public.test/hooks', events: ['pet.created'] }, { apiKey })).data.url).toBe('https://public.test/hooks');
    expect(reached).toBe(0);
  });

  it('refuses again at every delivery: a name rebound to loopback since registration reaches nothing', async () => {
    const { data: endpoint } = await store.createWebhook({ url: `https://rebound.test:${port}/`, events: ['pet.created'] }, { apiKey }).catch(async () => {
      names.set('rebound.test', '93.184.215.14');
      return store.createWebhook({ url: `https://rebound.test:${port}/`, events: ['pet.created'] }, { apiKey });
    });
    names.set('rebound.test', '127.0.0.1');
    await store.createPet({ name: 'Rebound', categoryId: 1, status: 'available' }, { apiKey });
    const end = Date.now() + 5000;
    let failed: { status: string; error: string | null } | undefined;
    while (Date.now() < end && !failed) {
      const { data } = await store.listWebhookDeliveries({ webhookId: endpoint.id, status: 'failed' }, { apiKey });
      failed = data[0];
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(failed?.error).toContain('127.0.0.1, which is not a public address');
    expect(reached).toBe(0);
  });
});
