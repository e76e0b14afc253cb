import { describe, expect, it } from 'vitest';
import { IdempotencyKey } from './idempotency-key.js';
import { requestHash } from './request-hash.js';

describe('the request hash', () => {
  it('is the same for the same fields in another order, also when nested', () => {
    expect(requestHash('createPet', { categoryId: 1, name: 'a' })).toBe(
      requestHash('createPet', { name: 'a', categoryId: 1 }),
    );
    expect(requestHash('op', { a: { y: 1, x: [{ q: 1, p: 2 }] } })).toBe(
      requestHash('op', { a: { x: [{ p: 2, q: 1 }], y: 1 } }),
    );
  });

  it('differs for another value, another array order or another operation', () => {
    const hash = requestHash('createPet', { name: 'a', categoryId: 1 });
    expect(requestHash('createPet', { name: 'a ', categoryId: 1 })).not.toBe(hash);
    expect(requestHash('op', { list: [1, 2] })).not.toBe(requestHash('op', { list: [2, 1] }));
    expect(requestHash('updatePet', { name: 'a', categoryId: 1 })).not.toBe(hash);
  });
});

describe('the Idempotency-Key rule', () => {
  it('accepts 1 to 255 visible ASCII characters and nothing else', () => {
    for (const key of [
      'a',
      '~'.repeat(255),
      '550e8400-e29b-41d4-a716-446655440000',
      '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}',
    ]) {
      expect(IdempotencyKey.safeParse(key).success).toBe(true);
    }
    for (const key of ['', 'a'.repeat(256), ' a', 'a b', 'tab\t', 'naïve', 'line\n']) {
      expect(IdempotencyKey.safeParse(key).success).toBe(false);
    }
  });
});
