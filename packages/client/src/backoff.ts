/** The first backoff's upper bound, and the largest. */
const BASE_MS = 500;
const CAP_MS = 20_000;

/**
 * Exponential backoff with full jitter: a wait drawn evenly from 0 to `min(20 s, 0.5 s × 2^attempt)`, so that
 * clients that failed together do not come back together.
 * @example await clock.sleep(fullJitterBackoff(attempt))
 */
export function fullJitterBackoff(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt));
}
