import { RedeliverInput, WebhookDelivery } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** Sends the event of one delivery again, as a new delivery due at once. */
export const redeliverWebhook = defineOperation({
  operationId: 'redeliverWebhook',
  procedure: 'redeliverWebhook',
  method: 'POST',
  path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
  summary: 'Redeliver an event',
  description:
    'Sends the event of a delivery again to its endpoint, as a new delivery due at once, answered 202 with it: the same body and `webhook-id`, freshly signed. Retried on failure as any delivery. A delivery of an endpoint not the caller\'s, or one pruned after 30 days, is 404.',
  tags: ['webhooks'],
  input: RedeliverInput,
  output: WebhookDelivery,
  successStatus: 202,
  writes: true,
  stability: 'experimental',
  async run({ webhookId, deliveryId }, { webhooks, owner }) {
    const delivery = await webhooks.redeliver(webhookId, deliveryId, owner);
    if (!delivery) throw new PetStoreError('not_found', `No delivery ${deliveryId} of webhook endpoint ${webhookId}.`);
    return delivery;
  },
});
