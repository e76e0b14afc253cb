import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { MAX_ID } from '../domain/pet-schemas.js';
import { ListWebhookDeliveriesInput, WebhookDeliveries } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** How far back the deliveries log goes (DECISIONS: 30 days; older events are pruned). */
const LOG_DAYS = 30;

/** A page of an endpoint's deliveries log, newest first; `meta.nextCursor` when older ones exist. */
export const listWebhookDeliveries = defineOperation({
  operationId: 'listWebhookDeliveries',
  procedure: 'listWebhookDeliveries',
  method: 'GET',
  path: '/webhooks/{webhookId}/deliveries',
  summary: "List a webhook endpoint's deliveries",
  description:
    "Returns a page of the endpoint's deliveries of the last 30 days, newest first, optionally by status: each event sent, its attempts, the last answer and when the next attempt is due. When older ones exist, the `Link` header carries the next page (`rel=\"next\"`).",
  tags: ['webhooks'],
  input: ListWebhookDeliveriesInput,
  output: WebhookDeliveries,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  pageProcedure: 'webhookDeliveriesPage',
  async run(input, { webhooks, owner, meta, now }) {
    if (!(await webhooks.find(input.webhookId, owner))) throw new PetStoreError('not_found', `No webhook endpoint with id ${input.webhookId}.`);
    const beforeId = input.cursor === undefined ? MAX_ID : decodeCursor(input.cursor);
    const since = new Date(now().getTime() - LOG_DAYS * 24 * 60 * 60 * 1000);
    const rows = await webhooks.deliveries({ endpointId: input.webhookId, status: input.status, beforeId, limit: input.limit + 1, since });
    if (rows.length > input.limit) {
      rows.length = input.limit;
      meta.nextCursor = encodeCursor(rows[rows.length - 1]!.id);
    }
    return rows;
  },
});
