import type { OperatorDelivery, OperatorWebhook, WebhookAdmin } from '@petstore/core';
import { shownJson } from '@petstore/core/input-rules';
import { keysOfLineage, type ReportKey } from './usage-report.js';
import { textTable } from './text-table.js';
import type { WebhookCommand } from './webhook-selection.js';

type Out = { write(text: string): unknown };

/** Where the webhook commands read from: the operator's view of the webhooks, and the keys (for owners' lineages and labels). */
export interface WebhookSource {
  webhooks: WebhookAdmin;
  keys: { list(): Promise<readonly ReportKey[]> };
}

/** An instant as the key tools print it: UTC, to the second; `-` for none. */
const time = (d: Date | null | undefined) => (d ? new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

/** An endpoint as `webhooks list --json` prints it: the owner with every key of its lineage and the first key's label. */
function endpointJson(endpoint: OperatorWebhook, keys: readonly ReportKey[]) {
  const { owner } = endpoint;
  if (!('keyId' in owner)) return endpoint;
  const label = keys.find((key) => key.id === owner.keyId)?.label ?? null;
  return { ...endpoint, owner: { ...owner, keyIds: keysOfLineage(keys, owner.keyId), label } };
}

function endpointRow(endpoint: ReturnType<typeof endpointJson>) {
  const { owner } = endpoint;
  return {
    id: String(endpoint.id),
    owner: 'keyId' in owner ? `key ${owner.keyId}` : `principal ${owner.principalId}`,
    keys: 'keyIds' in owner ? owner.keyIds.join(',') : '-',
    label: 'label' in owner && owner.label !== null ? owner.label : '-',
    url: endpoint.url,
    events: endpoint.events.join(','),
    state: endpoint.disabledAt ? 'disabled' : 'enabled',
    'failing since': time(endpoint.failingSince),
    pending: String(endpoint.pending),
    created: time(endpoint.createdAt),
  };
}

function deliveryRow(delivery: OperatorDelivery) {
  return {
    id: String(delivery.id),
    event: delivery.eventId,
    type: delivery.eventType,
    status: delivery.status,
    attempts: String(delivery.attempts),
    created: time(delivery.createdAt),
    'last attempt': time(delivery.lastAttemptAt),
    'last status': delivery.responseStatus === null ? '-' : String(delivery.responseStatus),
    'next attempt': delivery.status === 'pending' ? (delivery.nextAttemptAt ? time(delivery.nextAttemptAt) : 'now') : '-',
    error: delivery.error ?? '-',
  };
}

const json = (value: unknown) => `${shownJson(JSON.stringify(value, null, 2))}\n`;

/**
 * Runs a `webhooks` command for both key tools, across owners and without any secret: `list` every endpoint (its
 * owner as `keys list` numbers keys: the first key of its rotation, with the keys of that lineage), `deliveries` an
 * endpoint's log newest first, `redeliver` a delivery's event as a new delivery due at once. An id that names nothing
 * goes to `notFound`, which says so the tool's way and answers the exit code (or throws). Answers the exit code.
 * @example await printWebhooks({ webhooks, keys }, { name: 'webhooks list', json: false }, io, (message) => (io.err.write(`${message}\n`), 1))
 */
export async function printWebhooks(source: WebhookSource, command: WebhookCommand, io: { out: Out; err: Out }, notFound: (message: string) => number): Promise<number> {
  switch (command.name) {
    case 'webhooks list': {
      const [endpoints, keys] = await Promise.all([source.webhooks.list(), source.keys.list()]);
      const shown = endpoints.map((endpoint) => endpointJson(endpoint, keys));
      io.out.write(command.json ? json(shown) : textTable(shown.map(endpointRow), 'No webhook endpoints.\n'));
      return 0;
    }
    case 'webhooks deliveries': {
      const log = await source.webhooks.deliveries(command.webhookId, { limit: command.limit, status: command.status });
      if (!log) return notFound(`No webhook endpoint ${command.webhookId} (see "webhooks list").`);
      io.out.write(command.json ? json(log) : textTable(log.map(deliveryRow), `No deliveries${command.status ? ` ${command.status}` : ''} for webhook endpoint ${command.webhookId}.\n`));
      return 0;
    }
    case 'webhooks redeliver': {
      const again = await source.webhooks.redeliver(command.webhookId, command.deliveryId);
      if (!again) return notFound(`No delivery ${command.deliveryId} of webhook endpoint ${command.webhookId} (see "webhooks deliveries ${command.webhookId}").`);
      io.out.write(
        `Queued delivery ${again.id}: event ${again.eventId} (${again.eventType}) again to webhook endpoint ${command.webhookId}, ` +
          'due now, with the same webhook-id: a running instance sends it within its poll (5 s by default).\n',
      );
      return 0;
    }
  }
}
