import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPetStore, type PetStore } from '@petstore/core';
import { createHttpHandler } from '@petstore/embed';
import { createWebhookTransport, listen, testDatabases, type Listening } from '@petstore/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type PetStoreClient } from './index.js';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookVerificationReason } from './webhooks.js';

// DECISIONS "Events": `verifyWebhook(body, headers, secret)` checks a delivery by the Standard Webhooks scheme and
// types its event. Real deliveries from a store's worker to a receiver on port 0, on both databases; refusals of
// deliveries changed, signed with another secret, too old or too new, without their headers, or not events.

/** One POST a receiver got, with what `verifyWebhook` made of it (its event, or what it threw). */
interface Delivery {
  path: string;
  body: Buffer;
  headers: IncomingHttpHeaders;
  event?: WebhookEvent;
  error?: unknown;
}

/** A receiver that verifies each delivery with the secret of its path, answering 204, or 400 on a refusal. */
async function startReceiver() {
  const secrets = new Map<string, string>();
  const deliveries: Delivery[] = [];
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery: Delivery = { path: req.url ?? '', body: Buffer.concat(chunks), headers: req.headers };
      try {
        delivery.event = verifyWebhook(delivery.body, req.headers, secrets.get(delivery.path) ?? '');
        res.writeHead(204).end();
      } catch (error) {
        delivery.error = error;
        res.writeHead(400).end();
      }
      deliveries.push(delivery);
    });
  });
  return { ...server, secrets, deliveries };
}

/** Polls until `check` holds, or fails after `ms`. */
async function until(check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What `verifyWebhook` threw, as `{ name, reason }`; it must throw. */
function refusal(verify: () => unknown): { name: string; reason: WebhookVerificationReason } {
  try {
    verify();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return { name: error.name, reason: error.reason };
  }
  throw new Error('verifyWebhook returned instead of throwing');
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const headersOf = (delivery: Delivery) => delivery.headers as Record<string, string>;

describe.each(testDatabases)('verifyWebhook on deliveries of a store on $name', (database) => {
  let store: PetStore;
  let service: Listening;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let close: () => Promise<void>;
  let petstore: PetStoreClient;

  beforeAll(async () => {
    const opened = await database.open();
    const transport = createWebhookTransport({ allowPrivate: true });
    store = createPetStore({ db: opened.db, webhooks: { allowPrivate: true, transport, retryScheduleMs: [50, 100], pollMs: 20 } });
    service = await listen(createHttpHandler(store));
    receiver = await startReceiver();
    const { key } = await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 100_000, perDay: 1_000_000 } });
    petstore = createClient({ baseUrl: `${service.url}/v1`, apiKey: key, onDeprecation: false });
    close = async () => {
      await service.close();
      await store.close();
      await receiver.close();
      await opened.close();
    };
  });
  afterAll(() => close());
  afterEach(() => {
    receiver.deliveries.length = 0;
  });

  /** Registers an endpoint of the receiver at `path`, for `events`, and gives the receiver its secret. */
  const register = async (path: string, events: WebhookEvent['type'][]) => {
    const endpoint = await petstore.createWebhook({ url: `${receiver.url}${path}`, events });
    receiver.secrets.set(path, endpoint.secret);
    return endpoint;
  };

  it('returns every event of a real delivery, typed and equal to what the API answered, from the raw bytes', async () => {
    await register('/all', ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.completed', 'order.cancelled']);
    const rex = await petstore.createPet({ name: 'Rex', categoryId: 1 });
    const renamed = await petstore.updatePet({ petId: rex.id, name: 'Rexa' });
    const sold = await petstore.placeOrder({ petId: rex.id });
    const completed = await petstore.completeOrder({ orderId: sold.id });
    const tom = await petstore.createPet({ name: 'Tom', categoryId: 2 });
    const kept = await petstore.placeOrder({ petId: tom.id });
    const cancelled = await petstore.cancelOrder({ orderId: kept.id });
    const tomNow = await petstore.getPet({ petId: tom.id });
    await petstore.deletePet({ petId: tom.id });
    // Placing, completing and cancelling an order change its pet too: each also gives a pet.updated.
    await until(() => receiver.deliveries.length >= 12);

    expect(receiver.deliveries.filter((delivery) => delivery.error !== undefined)).toEqual([]);
    const events = receiver.deliveries.map((delivery) => delivery.event!);
    expect(events.map((event) => event.type).sort()).toEqual(
      ['pet.created', 'pet.updated', 'order.placed', 'pet.updated', 'order.completed', 'pet.updated', 'pet.created', 'order.placed', 'pet.updated', 'order.cancelled', 'pet.updated', 'pet.deleted'].sort(),
    );
    const find = <T extends WebhookEvent['type']>(type: T, id: number) =>
      events.find((event): event is Extract<WebhookEvent, { type: T }> => event.type === type && event.data.id === id);
    expect(find('pet.created', rex.id)?.data).toEqual(rex);
    expect(events.filter((event) => event.type === 'pet.updated' && event.data.id === rex.id).map((event) => event.data)).toContainEqual(renamed);
    expect(find('order.placed', sold.id)?.data).toEqual(sold);
    expect(find('order.completed', sold.id)?.data).toEqual(completed);
    expect(find('order.cancelled', kept.id)?.data).toEqual(cancelled);
    expect(find('pet.deleted', tom.id)?.data).toEqual(tomNow);
    for (const event of events) expect(Date.parse(event.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('verifies a delivery given as text with a Fetch Headers, or as bytes with a plain object in any case', async () => {
    await register('/forms', ['pet.created']);
    const pet = await petstore.createPet({ name: 'Kit', categoryId: 3 });
    await until(() => receiver.deliveries.some((delivery) => delivery.path === '/forms'));
    const delivery = receiver.deliveries.find((each) => each.path === '/forms')!;
    const secret = receiver.secrets.get('/forms')!;
    const expected = { type: 'pet.created', timestamp: expect.any(String), data: pet };
    expect(delivery.event).toEqual(expected);

    const fetchHeaders = new Headers(headersOf(delivery));
    expect(verifyWebhook(delivery.body.toString('utf8'), fetchHeaders, secret)).toEqual(expected);
    const upperCase = Object.fromEntries(Object.entries(headersOf(delivery)).map(([name, value]) => [name.toUpperCase(), value]));
    const bytes = new Uint8Array(delivery.body);
    expect(verifyWebhook(bytes, upperCase, secret)).toEqual(expected);
    expect(verifyWebhook(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), upperCase, secret)).toEqual(expected);
  });

  it('verifies with either secret during a rotation, both signatures in one header, and with no third', async () => {
    const endpoint = await register('/rotated', ['pet.created']);
    const old = endpoint.secret;
    const rotated = await petstore.rotateWebhookSecret({ webhookId: endpoint.id });
    expect(rotated.secret).not.toBe(old);
    // The receiver still has the old secret: the delivery verifies with it, and with the new one too.
    const pet = await petstore.createPet({ name: 'Bo', categoryId: 1 });
    await until(() => receiver.deliveries.some((delivery) => delivery.path === '/rotated'));
    const delivery = receiver.deliveries.find((each) => each.path === '/rotated')!;
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(delivery.event).toMatchObject({ type: 'pet.created', data: pet });
    expect(verifyWebhook(delivery.body, delivery.headers, rotated.secret)).toEqual(delivery.event);
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, newSecret()))).toEqual({ name: 'WebhookVerificationError', reason: 'bad_signature' });
  });

  it('refuses a real delivery whose body was changed, parsed and stringified again, or checked with another secret', async () => {
    await register('/changed', ['pet.created']);
    await petstore.createPet({ name: 'Ada', categoryId: 2 });
    await until(() => receiver.deliveries.some((delivery) => delivery.path === '/changed'));
    const delivery = receiver.deliveries.find((each) => each.path === '/changed')!;
    const secret = receiver.secrets.get('/changed')!;
    const text = delivery.body.toString('utf8');
    expect(verifyWebhook(text, delivery.headers, secret)).toMatchObject({ type: 'pet.created', data: { name: 'Ada' } });

    const changed = text.replace('"Ada"', '"Eve"');
    expect(changed).not.toBe(text);
    expect(refusal(() => verifyWebhook(changed, delivery.headers, secret)).reason).toBe('bad_signature');
    const restringified = JSON.stringify(JSON.parse(text), null, 2);
    expect(refusal(() => verifyWebhook(restringified, delivery.headers, secret)).reason).toBe('bad_signature');
    expect(refusal(() => verifyWebhook(text, delivery.headers, newSecret())).reason).toBe('bad_signature');
    const otherId = { ...headersOf(delivery), 'webhook-id': 'evt_someone_else' };
    expect(refusal(() => verifyWebhook(text, otherId, secret)).reason).toBe('bad_signature');
  });
});

describe('verifyWebhook refuses', () => {
  const secret = newSecret();
  const event = JSON.stringify({ type: 'pet.created', timestamp: '2026-12-03T10:00:00.000Z', data: { id: 1, name: 'Rex', categoryId: 1, status: 'available' } });
  /** The headers the service sends, signed with standardwebhooks at `at` (now by default). */
  const signed = (body: string, at = new Date(), id = 'evt_1', key = secret) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, body),
  });
  const minutes = (n: number) => new Date(Date.now() + n * 60_000);

  it('a delivery signed more than 5 minutes ago or ahead, or with a timestamp that is not a number', () => {
    expect(verifyWebhook(event, signed(event, minutes(-4)), secret)).toEqual(JSON.parse(event));
    expect(verifyWebhook(event, signed(event, minutes(4)), secret)).toEqual(JSON.parse(event));
    expect(refusal(() => verifyWebhook(event, signed(event, minutes(-6)), secret))).toEqual({ name: 'WebhookVerificationError', reason: 'bad_timestamp' });
    expect(refusal(() => verifyWebhook(event, signed(event, minutes(6)), secret)).reason).toBe('bad_timestamp');
    expect(refusal(() => verifyWebhook(event, { ...signed(event), 'webhook-timestamp': 'soon' }, secret)).reason).toBe('bad_timestamp');
  });

  it('a delivery without any one of its headers', () => {
    const headers = signed(event);
    for (const name of Object.keys(headers)) {
      const without = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      expect(refusal(() => verifyWebhook(event, without, secret)), name).toEqual({ name: 'WebhookVerificationError', reason: 'missing_headers' });
      expect(refusal(() => verifyWebhook(event, new Headers(without), secret)).reason, name).toBe('missing_headers');
      expect(refusal(() => verifyWebhook(event, { ...headers, [name]: '' }, secret)).reason, name).toBe('missing_headers');
    }
    expect(refusal(() => verifyWebhook(event, {}, secret)).reason).toBe('missing_headers');
  });

  it('a signed body that is not an event this client knows', () => {
    const bodies = [
      '',
      'not json',
      'null',
      '[]',
      '{"hello":"world"}',
      JSON.stringify({ ...JSON.parse(event), type: 'pet.sold' }),
      JSON.stringify({ ...JSON.parse(event), type: 'toString' }),
      JSON.stringify({ ...JSON.parse(event), timestamp: 'yesterday' }),
      JSON.stringify({ ...JSON.parse(event), data: null }),
      JSON.stringify({ type: 'pet.created', timestamp: '2026-12-03T10:00:00.000Z' }),
    ];
    for (const body of bodies) expect(refusal(() => verifyWebhook(body, signed(body), secret)).reason, body).toBe('not_an_event');
  });

  it('a parsed body or a secret that is not a whsec_ secret, as a TypeError that says what to pass', () => {
    expect(() => verifyWebhook(JSON.parse(event), signed(event), secret)).toThrow(/raw body/);
    expect(() => verifyWebhook(JSON.parse(event), signed(event), secret)).toThrow(TypeError);
    for (const wrong of ['', 'whsec_', undefined as unknown as string]) {
      expect(() => verifyWebhook(event, signed(event), wrong)).toThrow(/whsec_/);
    }
  });
});

describe('@petstore/client/webhooks', () => {
  /** The packages a built entry loads, following its own chunks. */
  async function packagesLoadedBy(entry: string, seen = new Set<string>()): Promise<string[]> {
    if (seen.has(entry)) return [];
    seen.add(entry);
    const text = await readFile(join(fileURLToPath(new URL('../dist/', import.meta.url)), entry), 'utf8');
    const loaded: string[] = [];
    for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?["']([^"']+)["'];?$/gm)) {
      loaded.push(...(specifier!.startsWith('./') ? await packagesLoadedBy(specifier!.slice(2), seen) : [specifier!]));
    }
    return [...new Set(loaded)].sort();
  }

  it('is an entry of its own: the built main entry never loads standardwebhooks, so a browser app does not', async () => {
    expect(await packagesLoadedBy('index.js')).toEqual(['p-limit']);
    expect(await packagesLoadedBy('webhooks.js')).toEqual(['standardwebhooks']);
  });
});
