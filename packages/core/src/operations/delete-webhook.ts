import { z } from 'zod';
import { WebhookIdInput } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** Deletes a webhook endpoint of the caller's, with its pending deliveries and its log. */
export const deleteWebhook = defineOperation({
  operationId: 'deleteWebhook',
  procedure: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{webhookId}',
  summary: 'Delete a webhook endpoint',
  description: "Deletes a webhook endpoint of the caller's: it receives nothing more, and its deliveries log goes with it. 204 with no body; anyone else's endpoint, or one already deleted, is 404.",
  tags: ['webhooks'],
  input: WebhookIdInput,
  output: z.null(),
  successStatus: 204,
  writes: true,
  stability: 'experimental',
  async run({ webhookId }, { webhooks, owner }) {
    if (!(await webhooks.delete(webhookId, owner))) throw new PetStoreError('not_found', `No webhook endpoint with id ${webhookId}.`);
    return null;
  },
});
