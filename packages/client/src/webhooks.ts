/*
 * `@petstore/client/webhooks`: what a receiver of the service's webhooks needs, apart from the REST client so that
 * an app that only calls the API (a browser page above all) never loads the signature library.
 */
export { verifyWebhook, type WebhookBody, type WebhookHeaders } from './webhook-verify.js';
export { WebhookVerificationError, type WebhookVerificationReason } from './webhook-verification-error.js';
export type { WebhookEvent, WebhookEventType } from './webhook-event.js';
