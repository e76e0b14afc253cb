import { describe, expect, it } from 'vitest';
import { createPageCache } from './page-cache.js';

const clockAt = (at = 0) => ({ at, now() { return this.at; } });
const page = (characters: number) => Object.freeze({ rows: Object.freeze([Object.freeze({ id: 1, name: '🐶'.repeat(characters / 2) })]) });

describe('the page cache', () => {
  it('serves a page from memory until its time is up, then loads it again, with no write in between', async () => {
    const clock = clockAt();
    const pages = createPageCache(clock, 1000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await pages.get('a', load)).toBe(1);
    clock.at += 999;
    expect(await pages.get('a', load)).toBe(1);
    clock.at += 1;
    expect(await pages.get('a', load)).toBe(2);
  });

  it('lets go of expired pages nobody asks for again, once its time has passed', async () => {
    const clock = clockAt();
    const pages = createPageCache(clock, 1000);
    for (let i = 0; i < 50; i++) await pages.get(`forged:${i}`, async () => page(1000));
    expect(pages.bytes).toBeGreaterThan(50 * 2000);
    clock.at += 1000;
    await pages.get('other', async () => page(2));
    expect(pages.bytes).toBeLessThan(1000);
  });

  it('keeps what it holds within its byte budget, the least recently used going first', async () => {
    const clock = clockAt();
    const budget = 64 * 1024;
    const pages = createPageCache(clock, 60_000, budget);
    let loads = 0;
    const load = async () => (loads++, page(1000));
    await pages.get('hot', load);
    for (let i = 0; i < 200; i++) {
      await pages.get(`forged:${i}`, load);
      await pages.get('hot', load);
      expect(pages.bytes).toBeLessThanOrEqual(budget);
    }
    expect(loads).toBe(201);
    expect(await pages.get('forged:0', load)).toEqual(page(1000));
    expect(loads).toBe(202);
  });

  it('never keeps a page larger than the whole budget', async () => {
    const pages = createPageCache(clockAt(), 1000, 4096);
    let loads = 0;
    const big = async () => (loads++, page(4096));
    await pages.get('big', big);
    await pages.get('big', big);
    expect(loads).toBe(2);
    expect(pages.bytes).toBe(0);
  });

  it('shares a load under way, and drops it on invalidate so it cannot bring back what a write changed', async () => {
    const pages = createPageCache(clockAt(), 1000);
    let release!: (value: string) => void;
    const slow = new Promise<string>((resolve) => (release = resolve));
    const first = pages.get('a', () => slow);
    expect(pages.get('a', async () => 'other')).toBe(first);
    pages.invalidate();
    release('before the write');
    expect(await first).toBe('before the write');
    expect(await pages.get('a', async () => 'after the write')).toBe('after the write');
  });

  it('forgets a failed load, so the next request tries again', async () => {
    const pages = createPageCache(clockAt(), 1000);
    await expect(pages.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await pages.get('a', async () => 'back')).toBe('back');
  });
});
