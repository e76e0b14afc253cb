// Small statistics helpers.

/** The median of a list of numbers (mean of the middle two for an even count); undefined when empty. */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (0..100) of an already sorted typed array, nearest-rank. */
export function percentile(sorted, p) {
  if (!sorted.length) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Rounds to a number of significant digits, for reports. */
export function round(value, digits = 3) {
  if (value === undefined || value === null || !Number.isFinite(value)) return value;
  if (value === 0) return 0;
  const scale = 10 ** (digits - 1 - Math.floor(Math.log10(Math.abs(value))));
  return Math.round(value * scale) / scale;
}
