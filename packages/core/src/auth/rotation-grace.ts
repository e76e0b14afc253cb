/** Longest rotation grace period: a year. */
export const MAX_GRACE_MS = 365 * 86_400_000;
