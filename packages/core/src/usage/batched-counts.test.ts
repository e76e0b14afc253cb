import { describe, expect, it } from 'vitest';
import { createBatchedCounts } from './batched-counts.js';

interface Count {
  name: string;
  n: number;
}

// Counts named by `name`, adding their `n`s.
const byName = {
  flushEveryMs: 60_000,
  idOf: (count: Count) => count.name,
  merge: (into: Count, from: Count) => {
    into.n += from.n;
  },
};

describe('batched counts', () => {
  it('merge by name, write in batches one after another, and count again what could not be written', async () => {
    const written: Count[][] = [];
    let refuse = 0;
    const counts = createBatchedCounts<Count>({
      ...byName,
      // Refuses the last `refuse` entries of a batch, as a database that went away half-way.
      async write(batch) {
        const kept = batch.slice(batch.length - refuse);
        written.push(batch.slice(0, batch.length - refuse).map((count) => ({ ...count })));
        return refuse > 0 ? kept : [];
      },
    });
    counts.add({ name: 'a', n: 1 });
    counts.add({ name: 'a', n: 2 });
    counts.entry('b', () => ({ name: 'b', n: 0 })).n += 5;
    const before = counts.generation;
    refuse = 1;
    await counts.flush();
    expect(counts.generation).not.toBe(before);
    expect(written).toEqual([[{ name: 'a', n: 3 }]]);
    // 'b' was kept back; a new count of it adds to it, and the next flush writes it once.
    refuse = 0;
    counts.add({ name: 'b', n: 1 });
    await Promise.all([counts.close(), counts.flush()]);
    expect(written).toEqual([[{ name: 'a', n: 3 }], [{ name: 'b', n: 6 }]]);
  });

  it('keep a whole batch when its write fails outright', async () => {
    let fail = true;
    const written: Count[] = [];
    const counts = createBatchedCounts<Count>({
      ...byName,
      async write(batch) {
        if (fail) throw new Error('connection refused');
        written.push(...batch);
        return [];
      },
    });
    counts.add({ name: 'a', n: 1 });
    await counts.flush();
    fail = false;
    await counts.close();
    expect(written).toEqual([{ name: 'a', n: 1 }]);
  });
});
