import type { OperationOutput } from './operation-types.js';

/** The events an endpoint can ask for: the service's `WebhookEventType`, as `createWebhook` answers it. */
export type WebhookEventType = OperationOutput<'createWebhook'>['events'][number];

type Pet = OperationOutput<'getPet'>;
type Order = OperationOutput<'getOrder'>;
type DataOf<T extends WebhookEventType> = T extends `pet.${string}` ? Pet : T extends `order.${string}` ? Order : never;

/**
 * The body of a delivery, `{ type, timestamp, data }`: a union on `type`, `data` the Pet (`pet.*`) or the Order
 * (`order.*`) as the API returns it, `timestamp` when the change was made (RFC 3339, UTC).
 * @example if (event.type === 'order.completed') ship(event.data.petId) // event.data: Order
 */
export type WebhookEvent = { [T in WebhookEventType]: { type: T; timestamp: string; data: DataOf<T> } }[WebhookEventType];

// Checked against the service's list both ways: an event type added to or taken from it fails the type check here.
const eventTypes = {
  'pet.created': true,
  'pet.updated': true,
  'pet.deleted': true,
  'order.placed': true,
  'order.completed': true,
  'order.cancelled': true,
} as const satisfies Record<WebhookEventType, true>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a parsed body has the shape of an event this client knows: a known `type`, a `timestamp` that is a date
 * and a `data` object. The signature vouches for the fields of `data`, which the service's schemas fixed.
 * @example if (!isWebhookEvent(JSON.parse(body))) throw new Error('not an event')
 */
export function isWebhookEvent(value: unknown): value is WebhookEvent {
  return (
    isObject(value) &&
    typeof value.type === 'string' &&
    Object.hasOwn(eventTypes, value.type) &&
    typeof value.timestamp === 'string' &&
    !Number.isNaN(Date.parse(value.timestamp)) &&
    isObject(value.data)
  );
}
