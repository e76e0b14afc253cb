import { Webhook } from 'standardwebhooks';

/** The headers a delivery is signed with (the Standard Webhooks names). */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a delivery's body with each secret, by the Standard Webhooks scheme (`v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`): one signature per secret, space-separated, so that a receiver that still has the secret a
 * rotation replaced verifies during its grace.
 * @example signDelivery('evt_1', new Date(), '{}', [secret]) // { 'webhook-id': 'evt_1', … }
 */
export function signDelivery(id: string, at: Date, body: string, secrets: readonly string[]): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}
