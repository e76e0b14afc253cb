import type { RateLimitWindow } from '../service/response-meta.js';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/**
 * Whole seconds a client waits for `ms` milliseconds to pass, as `Retry-After` states them: rounded up, at least 1.
 * @example retryAfterSeconds(44_800) // 45
 */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The number of the fixed window of length `ms` holding `now`, counted from the epoch (UTC days for a day). */
export function windowIndex(now: number, ms: number): number {
  return Math.floor(now / ms);
}

/** The window holding `now` as it stands after `count` requests in it. */
export function windowState(
  name: RateLimitWindow['name'],
  limit: number,
  count: number,
  ms: number,
  now: number,
): RateLimitWindow {
  const end = (windowIndex(now, ms) + 1) * ms;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: end / 1000,
    resetIn: retryAfterSeconds(end - now),
    seconds: ms / 1000,
    name,
  };
}

/** The binding window first: the one with fewer requests remaining, the minute on a tie. */
export function bindingFirst(minute: RateLimitWindow, day: RateLimitWindow): RateLimitWindow[] {
  return day.remaining < minute.remaining ? [day, minute] : [minute, day];
}
