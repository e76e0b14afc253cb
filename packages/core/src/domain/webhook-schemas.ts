import { z } from 'zod';
import { Order } from './order-schemas.js';
import { idField, Pet, pageFields } from './pet-schemas.js';

/** The events a webhook endpoint can ask for (DECISIONS "Events"). */
export const WebhookEventType = z
  .enum(['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.completed', 'order.cancelled'])
  .meta({
    id: 'WebhookEventType',
    description: "The catalogue's changes (`pet.*`, to every endpoint that asks) and the owner's orders (`order.*`).",
  });
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** The most endpoints one owner may have. */
export const MAX_WEBHOOKS_PER_OWNER = 10;

const instant = (description: string) =>
  z.string().meta({ description: `${description} (RFC 3339, UTC).`, format: 'date-time', maxLength: 24, example: '2026-12-03T10:00:00.000Z' });
const instantOrNull = (description: string) => instant(description).nullable();

const url = z
  .string()
  .max(2048, { error: 'must be at most 2048 characters long' })
  .refine((value) => URL.canParse(value), { error: 'must be an absolute URL' })
  .meta({
    description:
      'Where deliveries are POSTed: an `https://` URL whose host resolves to public addresses only (checked at registration and at every delivery; redirects are not followed).',
    example: 'https://example.com/webhooks/petstore',
  });

const events = z
  .array(WebhookEventType)
  .min(1, { error: 'must name at least one event' })
  .max(WebhookEventType.options.length)
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat an event' })
  .meta({ description: 'The events this endpoint receives.' });

/** The body of `createWebhook`. */
export const NewWebhook = z.strictObject({ url, events }).meta({ id: 'NewWebhook' });
export type NewWebhook = z.input<typeof NewWebhook>;

const webhookFields = {
  id: idField('Unique identifier assigned by the service when the endpoint is registered.'),
  url: z.string().meta({ description: 'Where deliveries are POSTed.', maxLength: 2048, example: 'https://example.com/webhooks/petstore' }),
  events: z.array(WebhookEventType).max(WebhookEventType.options.length).meta({ description: 'The events this endpoint receives.' }),
  createdAt: instant('When the endpoint was registered'),
  disabledAt: instantOrNull('When the endpoint was disabled after failing for 5 days straight; null while it is enabled'),
};

/** A webhook endpoint as returned (its secret only by `createWebhook` and `rotateWebhookSecret`). */
export const Webhook = z.strictObject(webhookFields).meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof Webhook>;

/** A webhook endpoint with its signing secret: the only answers that show it. */
export const WebhookWithSecret = z
  .strictObject({
    ...webhookFields,
    secret: z.string().meta({
      description: 'The signing secret (`whsec_` and the base64 of 32 bytes), shown only now: keep it to verify deliveries.',
      maxLength: 50,
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

/** The caller's endpoints (at most 10). */
export const Webhooks = z.array(Webhook).meta({ id: 'Webhooks', maxItems: MAX_WEBHOOKS_PER_OWNER });

/** The input of the operations on one endpoint: its id (from the path). */
export const WebhookIdInput = z.strictObject({ webhookId: idField('The identifier of the webhook endpoint.') });

/** Where a delivery stands: `pending` until a 2xx (`delivered`) or the last retry (`failed`). */
export const WebhookDeliveryStatus = z
  .enum(['pending', 'delivered', 'failed'])
  .meta({ id: 'WebhookDeliveryStatus', description: 'Where the delivery stands.' });
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** One delivery of one event to one endpoint, as the deliveries log shows it. */
export const WebhookDelivery = z
  .strictObject({
    id: idField('Unique identifier of the delivery.'),
    eventId: z.string().meta({ description: 'The event, sent as `webhook-id` on every attempt.', maxLength: 36, example: 'evt_5e1d0c8c2b7a4f0e9d3c1b2a39485766' }),
    eventType: WebhookEventType,
    status: WebhookDeliveryStatus,
    attempts: z.int().min(0).max(100).meta({ description: 'Attempts made so far.', format: 'int32', example: 1 }),
    createdAt: instant('When the event was recorded for this endpoint'),
    lastAttemptAt: instantOrNull('When the last attempt was made; null before the first'),
    nextAttemptAt: instantOrNull('When the next attempt is due; null when none is (delivered, failed, or due at once)'),
    responseStatus: z
      .int()
      .min(100)
      .max(599)
      .meta({ format: 'int32' })
      .nullable()
      .meta({ description: "The last attempt's HTTP status; null when it got none.", example: 200 }),
    error: z.string().nullable().meta({ description: 'Why the last attempt failed, when it got no 2xx.', maxLength: 200, example: null }),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** A page of deliveries, newest first. */
export const WebhookDeliveries = z.array(WebhookDelivery).meta({ id: 'WebhookDeliveries', maxItems: 100 });

const page = pageFields('deliveries');

/** The input of `listWebhookDeliveries`, as typed callers send it. */
export const ListWebhookDeliveriesInput = z.strictObject({
  webhookId: idField('The identifier of the webhook endpoint.'),
  limit: page.limit.default(20),
  status: WebhookDeliveryStatus.optional().meta({ description: 'Return only deliveries with this status.' }),
  cursor: page.cursor,
});

/** The input of `redeliverWebhook`: the endpoint and the delivery whose event is sent again. */
export const RedeliverInput = z.strictObject({
  webhookId: idField('The identifier of the webhook endpoint.'),
  deliveryId: idField('The delivery whose event is sent again.'),
});

const event = <T extends WebhookEventType, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp: instant('When the change was made'), data });

/**
 * The body of a delivery: `{ type, timestamp, data }`, `data` the Pet or the Order as the API returns it (after the
 * change; as it was before, for `pet.deleted`).
 */
export const WebhookEvent = z
  .discriminatedUnion('type', [
    event('pet.created', Pet),
    event('pet.updated', Pet),
    event('pet.deleted', Pet),
    event('order.placed', Order),
    event('order.completed', Order),
    event('order.cancelled', Order),
  ])
  .meta({ id: 'WebhookEvent' });
export type WebhookEvent = z.infer<typeof WebhookEvent>;
