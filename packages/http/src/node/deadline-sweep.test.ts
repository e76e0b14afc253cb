import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeadlineSweep, SWEEP_EVERY_MS } from './deadline-sweep.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a deadline sweep', () => {
  it('calls each watched function once, after its deadline and at most one sweep late', () => {
    const sweep = createDeadlineSweep();
    const early = vi.fn();
    const late = vi.fn();
    sweep.watch(performance.now() + 1_000, early);
    sweep.watch(performance.now() + 3_000, late);
    vi.advanceTimersByTime(999);
    expect(early).not.toHaveBeenCalled();
    vi.advanceTimersByTime(SWEEP_EVERY_MS);
    expect(early).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_000 + SWEEP_EVERY_MS);
    expect(late).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(early).toHaveBeenCalledTimes(1);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('never calls a function unwatched before its deadline', () => {
    const sweep = createDeadlineSweep();
    const expire = vi.fn();
    const unwatch = sweep.watch(performance.now() + 1_000, expire);
    vi.advanceTimersByTime(500);
    unwatch();
    vi.advanceTimersByTime(5_000);
    expect(expire).not.toHaveBeenCalled();
  });

  it('runs its interval only while something is watched', () => {
    const sweep = createDeadlineSweep();
    expect(vi.getTimerCount()).toBe(0);
    const unwatchA = sweep.watch(performance.now() + 1_000, () => {});
    const unwatchB = sweep.watch(performance.now() + 1_000, () => {});
    expect(vi.getTimerCount()).toBe(1);
    unwatchA();
    unwatchB();
    vi.advanceTimersByTime(SWEEP_EVERY_MS);
    expect(vi.getTimerCount()).toBe(0);
    sweep.watch(performance.now() + 1_000, () => {});
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_000 + SWEEP_EVERY_MS);
    expect(vi.getTimerCount()).toBe(0);
  });
});
