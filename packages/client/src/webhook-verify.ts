import { Webhook, WebhookVerificationError as StandardWebhookError } from 'standardwebhooks';
import { isWebhookEvent, type WebhookEvent } from './webhook-event.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

/** A delivery's raw body: the bytes as they arrived (a `Buffer` is a `Uint8Array`), or their text. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/**
 * A delivery's headers: a Fetch `Headers`, Node's `IncomingHttpHeaders` (`req.headers`, in Express too) or a plain
 * object; names in any case.
 */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
type SignedHeaders = Record<(typeof SIGNED_HEADERS)[number], string>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    // Several signatures in repeated headers are one list, as in one header.
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

function payloadOf(body: WebhookBody): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError(
    'verifyWebhook: the body must be the raw body (a string, Buffer, Uint8Array or ArrayBuffer), not a parsed one: in Express, express.raw({ type: "application/json" }); in a Fetch handler, await request.text().',
  );
}

function verifierOf(secret: string): Webhook {
  try {
    return new Webhook(secret);
  } catch (error) {
    throw new TypeError("verifyWebhook: the secret must be the endpoint's whsec_… secret, as createWebhook answered it.", { cause: error });
  }
}

/**
 * Checks a webhook delivery by the Standard Webhooks scheme and returns its event, typed: the `webhook-id`,
 * `webhook-timestamp` (within 5 minutes of now) and `webhook-signature` headers must be there and one of the
 * signatures must be the secret's (during a rotation the service signs with the old and the new secret, so either
 * verifies), and the body must be an event. Otherwise it throws a {@link WebhookVerificationError} naming why.
 *
 * `body` must be the raw bytes as they arrived: a body parsed and stringified again does not verify (keys, spaces and
 * escapes may differ). The same event comes again on a retry or a redelivery, with the same `webhook-id`: deduplicate
 * on it.
 * @example const event = verifyWebhook(await request.text(), request.headers, process.env.PETSTORE_WEBHOOK_SECRET!)
 */
export function verifyWebhook(body: WebhookBody, headers: WebhookHeaders, secret: string): WebhookEvent {
  const payload = payloadOf(body);
  const signed: Partial<SignedHeaders> = {};
  for (const name of SIGNED_HEADERS) signed[name] = header(headers, name);
  const missing = SIGNED_HEADERS.filter((name) => !signed[name]);
  if (missing.length > 0) throw new WebhookVerificationError('missing_headers', `The delivery has no ${missing.join(', ')} header.`);
  try {
    verifierOf(secret).verify(payload, signed as SignedHeaders, { jsonParse: false });
  } catch (error) {
    if (!(error instanceof StandardWebhookError)) throw error;
    const reason = /timestamp|invalid signature headers/i.test(error.message) ? 'bad_timestamp' : 'bad_signature';
    throw new WebhookVerificationError(reason, `The delivery did not verify: ${error.message}.`, { cause: error });
  }
  let event: unknown;
  try {
    event = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
  } catch {
    event = undefined;
  }
  if (!isWebhookEvent(event)) throw new WebhookVerificationError('not_an_event', 'The delivery is signed, but its body is not an event this client knows.');
  return event;
}
