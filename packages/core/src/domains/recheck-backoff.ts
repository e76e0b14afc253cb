/** How long a pending domain is checked again by itself (DNS propagation): 48 hours from when it was added. */
export const RECHECK_WINDOW_MS = 48 * 3_600_000;

const FIRST_DELAY_MS = 60_000;
const MAX_DELAY_MS = 3_600_000;

/**
 * When a pending domain that failed `checks` checks is looked at again: 1 min, doubling, at most 1 h, and a last
 * check at the end of the window; undefined once the window is over (the domain is then `failed`).
 * @example nextRecheck({ addedAt: 0, checks: 1, now: 0 }) // 60_000
 */
export function nextRecheck({ addedAt, checks, now }: { addedAt: number; checks: number; now: number }): number | undefined {
  const deadline = addedAt + RECHECK_WINDOW_MS;
  if (now >= deadline) return undefined;
  const delay = Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, Math.min(checks - 1, 20)), MAX_DELAY_MS);
  return Math.min(now + delay, deadline);
}
