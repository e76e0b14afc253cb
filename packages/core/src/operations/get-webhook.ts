import { Webhook, WebhookIdInput } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** One webhook endpoint of the caller's; anyone else's is 404. */
export const getWebhook = defineOperation({
  operationId: 'getWebhook',
  procedure: 'getWebhook',
  method: 'GET',
  path: '/webhooks/{webhookId}',
  summary: 'Get a webhook endpoint',
  description: "Returns one webhook endpoint of the caller's, without its secret. Anyone else's is 404, as one that does not exist.",
  tags: ['webhooks'],
  input: WebhookIdInput,
  output: Webhook,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  async run({ webhookId }, { webhooks, owner }) {
    const webhook = await webhooks.find(webhookId, owner);
    if (!webhook) throw new PetStoreError('not_found', `No webhook endpoint with id ${webhookId}.`);
    return webhook;
  },
});
