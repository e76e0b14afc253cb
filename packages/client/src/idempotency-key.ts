/**
 * A fresh `Idempotency-Key`: 128 random bits as 32 hex digits, from Web Crypto (in every runtime with fetch, also on
 * pages that are not a secure context).
 * @example headers['idempotency-key'] = newIdempotencyKey()
 */
export function newIdempotencyKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let key = '';
  for (const byte of bytes) key += byte.toString(16).padStart(2, '0');
  return key;
}
