const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * Reads a duration such as `30d`, `24h`, `1d12h` or `90m` (units s, m, h, d, w) into milliseconds; `0` is allowed.
 * Answers undefined for anything else.
 * @example parseDuration('1d12h') // 129_600_000
 */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (!/^(?:[0-9]{1,6}[smhdw])+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)([smhdw])/g)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return ms;
}

/**
 * Reads an instant written in ISO 8601 with its zone (`2027-01-01T00:00:00Z`, `…+02:00`) or a date (`2027-01-01`,
 * midnight UTC); answers undefined for anything else, including local times without a zone.
 * @example parseInstant('2027-01-01') // 2027-01-01T00:00:00.000Z
 */
export function parseInstant(text: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\d(?:T\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?(?:Z|[+-]\d\d:\d\d))?$/.test(text)) return undefined;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
