import { describe, expect, it } from 'vitest';
import { createQuota } from './create-quota.js';

describe('the addresses a memory quota holds', () => {
  it('holds at most maxAddresses counts: the address counted first is forgotten, a later one keeps its count', async () => {
    const clock = { at: Date.parse('2026-11-23T12:00:00Z'), now: () => clock.at };
    const quota = createQuota({ store: 'memory', clock, maxAddresses: 3 });
    const remaining = async (address: string) => (await quota.consumeAddress(address))[0]!.remaining;
    expect(await remaining('203.0.113.1')).toBe(59);
    expect(await remaining('203.0.113.1')).toBe(58);
    expect(await remaining('203.0.113.2')).toBe(59);
    expect(await remaining('203.0.113.3')).toBe(59);
    expect(await remaining('203.0.113.2')).toBe(58);
    // A fourth address: the first one's count goes, and it starts afresh; the others keep theirs.
    expect(await remaining('203.0.113.4')).toBe(59);
    expect(await remaining('203.0.113.3')).toBe(58);
    expect(await remaining('203.0.113.1')).toBe(59);
    // A past minute's counts are the oldest, and go first.
    clock.at += 60_000;
    expect(await remaining('203.0.113.5')).toBe(59);
    expect(await remaining('203.0.113.5')).toBe(58);
    await quota.close();
  });

  it('refuses a maxAddresses that is not a whole number above 0', () => {
    expect(() => createQuota({ store: 'memory', maxAddresses: 0 })).toThrow(RangeError);
  });
});
