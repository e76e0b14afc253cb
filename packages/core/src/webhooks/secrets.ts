import { randomBytes } from 'node:crypto';

/**
 * A new signing secret as Standard Webhooks writes it: `whsec_` and the base64 of 32 random bytes.
 * @example newWebhookSecret() // 'whsec_3q2+7w…'
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
