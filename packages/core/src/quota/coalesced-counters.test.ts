import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesced-counters.js';
import type { Counters } from './counters.js';
import { createMemoryCounters } from './memory-counters.js';

function counted(inner: Counters) {
  const calls = { increment: 0, read: 0, windows: 0 };
  const counters: Counters = {
    ...inner,
    increment: (key, seconds, amount) => (calls.increment++, inner.increment(key, seconds, amount)),
    read: (key) => (calls.read++, inner.read(key)),
    incrementWindows: (minute, day, amount, perMinute) => (calls.windows++, inner.incrementWindows(minute, day, amount, perMinute)),
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

  it('counts a key\'s windows together: places in the minute, and in the day only for those within the minute', async () => {
    const { counters, calls } = counted(createMemoryCounters());
    const together = coalesced(counters);
    const minute = { key: 'm', seconds: 300 };
    const day = { key: 'd', seconds: 172_800 };
    const first = await together.incrementWindows(minute, day, 1, 10);
    expect(first).toEqual({ minute: 1, day: 1 });
    const batch = await Promise.all(Array.from({ length: 14 }, () => together.incrementWindows(minute, day, 1, 10)));
    // Requests 2 to 10 fit the minute and take day places 2 to 10; 11 to 15 are over it and see the day at 10.
    expect(batch.map((c) => c.minute)).toEqual(Array.from({ length: 14 }, (_, i) => i + 2));
    expect(batch.map((c) => c.day)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 10, 10]);
    expect(calls.windows).toBeLessThanOrEqual(3);
    expect(await counters.read('d')).toBe(10);
  });

  it('counts callers of several requests at once together with the others, each seeing the count of its last', async () => {
    const { counters, calls } = counted(createMemoryCounters());
    const together = coalesced(counters);
    const minute = { key: 'm', seconds: 300 };
    const day = { key: 'd', seconds: 172_800 };
    await together.incrementWindows(minute, day, 1, 10);
    // 2 to 5, then 6 (one), then 7 to 16 of which 7 to 10 fit the minute and take day places 7 to 10.
    const batch = await Promise.all([
      together.incrementWindows(minute, day, 4, 10),
      together.incrementWindows(minute, day, 1, 10),
      together.incrementWindows(minute, day, 10, 10),
    ]);
    expect(batch).toEqual([
      { minute: 5, day: 5 },
      { minute: 6, day: 6 },
      { minute: 16, day: 10 },
    ]);
    expect(calls.windows).toBeLessThanOrEqual(3);
    expect(await counters.read('d')).toBe(10);
    const counts = await Promise.all([together.increment('k', 60, 3), together.increment('k', 60), together.increment('k', 60, 5)]);
    expect(counts).toEqual([3, 4, 9]);
    expect(calls.increment).toBeLessThanOrEqual(2);
  });

  it('rejects every waiting window count of a batch when the store fails', async () => {
    const failing: Counters = { ...createMemoryCounters(), incrementWindows: () => Promise.reject(new Error('store down')) };
    const together = coalesced(failing);
    const batch = await Promise.allSettled(
      Array.from({ length: 5 }, () => together.incrementWindows({ key: 'm', seconds: 60 }, { key: 'd', seconds: 60 }, 1, 10)),
    );
    expect(batch.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
  });
});
