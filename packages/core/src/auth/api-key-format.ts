import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'psk_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const GENERATED = /^psk_[0-9A-Za-z]{38}$/;
/** Keys given in configuration: 16 to 255 visible ASCII characters other than `:` and `,`. */
const CONFIGURED = /^[!-+\--9;-~]{16,255}$/;

function checksum(body: string): string {
  const digest = createHash('sha256').update(body).digest();
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += ALPHABET[digest[i]! % 62];
  return out;
}

/**
 * Makes a new API key: `psk_`, 32 random base62 characters and a 6-character checksum.
 * @example generateApiKey() // 'psk_3kF…Qa91xZ'
 */
export function generateApiKey(): string {
  let body = PREFIX;
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(62)];
  return body + checksum(body);
}

/**
 * What {@link isWellFormedApiKey} asks of a key given in configuration, in words, for the messages that refuse one.
 * @example throw new RangeError(`A configured API key ${CONFIGURED_API_KEY_RULE}.`)
 */
export const CONFIGURED_API_KEY_RULE =
  'must be 16 to 255 visible ASCII characters other than ":" and ","; one starting with "psk_" must be a key made by the key tool';

/**
 * Whether a token can be a key at all, without a database look-up: a `psk_` key must carry a valid checksum,
 * any other must fit the configured-key alphabet.
 * @example isWellFormedApiKey('psk_nope') // false
 */
export function isWellFormedApiKey(token: string): boolean {
  if (token.startsWith(PREFIX)) {
    return GENERATED.test(token) && checksum(token.slice(0, -CHECKSUM_LENGTH)) === token.slice(-CHECKSUM_LENGTH);
  }
  return CONFIGURED.test(token);
}

/**
 * The SHA-256 of a key in hex: the only form in which keys are stored.
 * @example hashApiKey('psk_…') // '9f86d0…'
 */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
