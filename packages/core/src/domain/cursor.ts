import { PetStoreError } from '../errors/index.js';
import { MAX_ID } from './pet-schemas.js';

const PREFIX = 'p1.';

/**
 * Encodes the keyset position after which the next page starts. Opaque to clients.
 * @example encodeCursor(42) // 'cDEuNDI'
 */
export function encodeCursor(lastId: number): string {
  return Buffer.from(PREFIX + lastId.toString(36)).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeCursor}; anything else is a 400 `invalid_request`.
 * @example decodeCursor(encodeCursor(42)) // 42
 */
export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  const id = /^[0-9a-z]{1,11}$/.test(digits) ? parseInt(digits, 36) : NaN;
  if (!Number.isSafeInteger(id) || id < 0 || id > MAX_ID || encodeCursor(id) !== cursor) {
    throw new PetStoreError('invalid_request', 'The cursor cannot be read; start again from the first page.', {
      details: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
    });
  }
  return id;
}
