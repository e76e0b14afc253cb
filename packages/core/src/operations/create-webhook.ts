import { MAX_WEBHOOKS_PER_OWNER, NewWebhook, WebhookWithSecret } from '../domain/webhook-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { newWebhookSecret } from '../webhooks/secrets.js';
import { checkTarget, TargetRefusedError } from '../webhooks/targets.js';
import { defineOperation } from './operation.js';

/** Registers a webhook endpoint of the caller's; its signing secret is shown in this answer only. */
export const createWebhook = defineOperation({
  operationId: 'createWebhook',
  procedure: 'createWebhook',
  method: 'POST',
  path: '/webhooks',
  summary: 'Register a webhook endpoint',
  description:
    "Registers an endpoint that receives the events it names, signed by the Standard Webhooks scheme with the `secret` of this answer (shown only here and by `rotateWebhookSecret`). The URL must be `https://` and its host resolve to public addresses only. Catalogue events (`pet.*`) come from every change; order events only from the caller's orders. At most 10 endpoints per owner.",
  tags: ['webhooks'],
  input: NewWebhook,
  output: WebhookWithSecret,
  successStatus: 201,
  writes: true,
  stability: 'experimental',
  async run({ url, events }, { webhooks, webhookTargets, owner, now }) {
    try {
      await checkTarget(url, webhookTargets);
    } catch (error) {
      if (!(error instanceof TargetRefusedError)) throw error;
      throw new PetStoreError('invalid_request', `The webhook URL is refused: it ${error.message}.`, {
        details: [{ path: 'url', message: error.message }],
      });
    }
    const created = await webhooks.create(owner, { url, events, secret: newWebhookSecret() }, now(), MAX_WEBHOOKS_PER_OWNER);
    if (!created) {
      throw new PetStoreError('invalid_request', `An owner may have at most ${MAX_WEBHOOKS_PER_OWNER} webhook endpoints; delete one first.`, {
        details: [{ path: 'url', message: `would be endpoint ${MAX_WEBHOOKS_PER_OWNER + 1} of this owner (at most ${MAX_WEBHOOKS_PER_OWNER})` }],
      });
    }
    return { ...created.webhook, secret: created.secret };
  },
});
