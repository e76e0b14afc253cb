import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesced-counters.js';
import type { Counters } from './counters.js';
import { createMemoryCounters } from './memory-counters.js';

function counted(inner: Counters) {
  const calls = { increment: 0, read: 0 };
  const counters: Counters = {
    ...inner,
    increment: (key, seconds, amount) => (calls.increment++, inner.increment(key, seconds, amount)),
    read: (key) => (calls.read++, inner.read(key)),
  };
  return { counters, calls };
}

describe('coalesced counters', () => {
  it('gives 100 concurrent increments the counts 1 to 100 in two store calls', async () => {
    const { counters, calls } = counted(createMemoryCounters());
    const together = coalesced(counters);
    const counts = await Promise.all(Array.from({ length: 100 }, () => together.increment('k', 60)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(calls.increment).toBe(2);
    expect(await counters.read('k')).toBe(100);
  });

  it('keeps keys apart and adds later increments to the total', async () => {
    const counters = coalesced(createMemoryCounters());
    await Promise.all([counters.increment('a', 60), counters.increment('a', 60), counters.increment('b', 60)]);
    expect(await counters.increment('a', 60)).toBe(3);
    expect(await counters.increment('b', 60)).toBe(2);
  });

  it('shares one look-up among concurrent reads of a key', async () => {
    const { counters, calls } = counted(createMemoryCounters());
    const together = coalesced(counters);
    await together.increment('k', 60);
    expect(await Promise.all([together.read('k'), together.read('k'), together.read('k')])).toEqual([1, 1, 1]);
    expect(calls.read).toBe(1);
  });

  it('rejects every waiting increment of a batch when the store fails', async () => {
    const failing: Counters = { ...createMemoryCounters(), increment: () => Promise.reject(new Error('store down')) };
    const together = coalesced(failing);
    const batch = await Promise.allSettled(Array.from({ length: 5 }, () => together.increment('k', 60)));
    expect(batch.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
  });
});
