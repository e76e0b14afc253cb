import type { OperatorDelivery, OperatorWebhook, WebhookAdmin } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { printWebhooks } from './print-webhooks.js';
import { webhookCommand } from './webhook-selection.js';

const at = new Date('2026-12-03T10:00:00.123Z');
const endpoint: OperatorWebhook = {
  id: 4,
  owner: { keyId: 1 },
  url: 'https://shop.example/hooks',
  events: ['pet.created', 'order.placed'],
  createdAt: at,
  failingSince: at,
  disabledAt: null,
  pending: 2,
};
const delivery: OperatorDelivery = {
  id: 9,
  eventId: 'evt_1',
  eventType: 'pet.created',
  status: 'pending',
  attempts: 2,
  createdAt: at,
  lastAttemptAt: at,
  nextAttemptAt: null,
  responseStatus: null,
  // Text a receiver's network gave: it must not drive the operator's terminal.
  error: 'connect ECONNREFUSED \u001b]0;pwned\u0007',
};
const webhooks: WebhookAdmin = {
  list: async () => [endpoint],
  deliveries: async (id) => (id === 4 ? [delivery] : undefined),
  redeliver: async () => undefined,
};
// Labels stored before their rule may hold anything.
const keys = { list: async () => [{ id: 1, label: 'ops\u001b[2J', quotaKeyId: undefined }, { id: 7, label: 'ops\u001b[2J', quotaKeyId: 1 }] };

async function print(argv: string[]) {
  let out = '';
  let err = '';
  const [name, ...args] = argv;
  const json = args.includes('--json');
  const code = await printWebhooks(
    { webhooks, keys },
    webhookCommand(name!, args.filter((arg) => arg !== '--json'), { json }),
    { out: { write: (text: string) => (out += text) }, err: { write: (text: string) => (err += text) } },
    (message) => ((err += `${message}\n`), 1),
  );
  return { code, out, err };
}

describe('what the webhook commands print', () => {
  it('shows the owner with its lineage, and escapes what others wrote, in the table and in JSON', async () => {
    const { code, out } = await print(['list']);
    expect(code).toBe(0);
    expect(out).toBe(
      'ID  OWNER  KEYS  LABEL         URL                         EVENTS                    STATE    FAILING SINCE         PENDING  CREATED\n' +
        '4   key 1  1,7   ops\\u{1b}[2J  https://shop.example/hooks  pet.created,order.placed  enabled  2026-12-03T10:00:00Z  2        2026-12-03T10:00:00Z\n',
    );
    const listed = await print(['list', '--json']);
    expect(listed.out).not.toContain('\u001b');
    expect(JSON.parse(listed.out)).toEqual([{ ...JSON.parse(JSON.stringify(endpoint)), owner: { keyId: 1, keyIds: [1, 7], label: 'ops\u001b[2J' } }]);
    const log = await print(['deliveries', '4']);
    expect(log.out).toMatch(/\n9 +evt_1 +pet\.created +pending +2 +2026-12-03T10:00:00Z +2026-12-03T10:00:00Z +- +now +connect ECONNREFUSED \\u\{1b\}\]0;pwned\\u\{7\}\n$/);
    expect(log.out).not.toContain('\u001b');
  });

  it('goes to the tool\'s own way of saying so for an endpoint or a delivery that is not there', async () => {
    expect(await print(['deliveries', '5'])).toEqual({ code: 1, out: '', err: 'No webhook endpoint 5 (see "webhooks list").\n' });
    expect(await print(['redeliver', '4', '8'])).toEqual({ code: 1, out: '', err: 'No delivery 8 of webhook endpoint 4 (see "webhooks deliveries 4").\n' });
  });
});
