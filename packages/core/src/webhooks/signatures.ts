import { createHmac } from 'node:crypto';

/** The headers a delivery is signed with (the Standard Webhooks names). */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const SECRET_PREFIX = 'whsec_';

/**
 * Signs a delivery's body with each secret, by the Standard Webhooks scheme: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's bytes (the base64 after `whsec_`). One signature per secret,
 * space-separated, so that a receiver that still has the secret a rotation replaced verifies during its grace.
 * Signed with Node's own HMAC: the `standardwebhooks` package verifies these signatures in the tests and in
 * `@petstore/client`, but the service does not install it (docs/decisions.md, "Events").
 * @example signDelivery('evt_1', new Date(), '{}', [secret]) // { 'webhook-id': 'evt_1', … }
 */
export function signDelivery(id: string, at: Date, body: string, secrets: readonly string[]): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signature = (secret: string) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  };
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': secrets.map(signature).join(' ') };
}
