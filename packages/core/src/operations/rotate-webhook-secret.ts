import { WebhookIdInput, WebhookWithSecret } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { newWebhookSecret } from '../webhooks/secrets.js';
import { defineOperation } from './operation.js';

/** How long the secret a rotation replaces keeps signing beside the new one (DECISIONS: 24 hours). */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** Gives a webhook endpoint a new signing secret; the old one signs beside it for 24 hours. */
export const rotateWebhookSecret = defineOperation({
  operationId: 'rotateWebhookSecret',
  procedure: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{webhookId}/rotate-secret',
  summary: "Rotate a webhook endpoint's secret",
  description:
    'Gives the endpoint a new signing secret, shown only in this answer. For the next 24 hours every delivery is signed with both the new and the replaced secret (two `v1,` signatures), so that receivers can switch without losing one.',
  tags: ['webhooks'],
  input: WebhookIdInput,
  output: WebhookWithSecret,
  successStatus: 200,
  writes: true,
  stability: 'experimental',
  async run({ webhookId }, { webhooks, owner, now }) {
    const rotated = await webhooks.rotate(webhookId, owner, newWebhookSecret(), new Date(now().getTime() + ROTATION_GRACE_MS));
    if (!rotated) throw new PetStoreError('not_found', `No webhook endpoint with id ${webhookId}.`);
    return { ...rotated.webhook, secret: rotated.secret };
  },
});
