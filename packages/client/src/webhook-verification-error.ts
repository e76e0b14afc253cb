/**
 * Why a delivery was refused: a `webhook-*` header is missing; its timestamp is not a number or is more than the
 * tolerance (5 minutes) away from now (a replay, or a clock that is off); no signature matches the secret (a
 * forgery, a body changed on the way or parsed and stringified again, or the wrong secret); or the signed body is
 * not an event this client knows.
 */
export type WebhookVerificationReason = 'missing_headers' | 'bad_timestamp' | 'bad_signature' | 'not_an_event';

/**
 * A delivery `verifyWebhook` refused: answer it with a 4xx and act on nothing in it.
 * @example catch (error) { if (error instanceof WebhookVerificationError) return res.status(400).send(error.reason) }
 */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}
