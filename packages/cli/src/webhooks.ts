/*
 * `@petstore/cli/webhooks`: the webhook commands of both key tools (`npx @petstore/cli webhooks …` and the service's
 * `petstore webhooks …`): their options, and what they print.
 */
export { printWebhooks, type WebhookSource } from './print-webhooks.js';
export { textTable } from './text-table.js';
export {
  DELIVERIES_OPTIONS,
  DELIVERY_STATUSES,
  MAX_DELIVERIES,
  webhookCommand,
  type DeliveryStatus,
  type WebhookCommand,
} from './webhook-selection.js';
