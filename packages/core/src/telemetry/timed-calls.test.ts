import { describe, expect, it } from 'vitest';
import { timedCalls } from './timed-calls.js';

describe('timedCalls', () => {
  it("observes each of a frozen object's promise-answering methods once it settles, and passes the rest through", async () => {
    const seen: number[] = [];
    let release!: () => void;
    const target = Object.freeze({
      base: 2,
      held(): Promise<number> {
        return new Promise((resolve) => (release = () => resolve(this.base)));
      },
      failing: async () => {
        throw new Error('away');
      },
      now: () => 7,
      ready: async () => {},
    });
    const timed = timedCalls(target, (seconds) => seen.push(seconds), ['ready']);
    const answer = timed.held();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen).toEqual([]);
    release();
    expect(await answer).toBe(2);
    await expect(timed.failing()).rejects.toThrow('away');
    expect(timed.now()).toBe(7);
    await timed.ready();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeGreaterThanOrEqual(0.025);
    expect(timed.base).toBe(2);
  });
});
