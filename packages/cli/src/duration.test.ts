import { describe, expect, it } from 'vitest';
import { parseDuration, parseInstant } from './duration.js';

describe('durations and instants of the key tool', () => {
  it('reads durations in seconds, minutes, hours, days and weeks, alone or together', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('1d12h')).toBe(36 * 3_600_000);
    expect(parseDuration('90m')).toBe(5_400_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('0')).toBe(0);
  });

  it('refuses durations without a unit, with other units or signs', () => {
    for (const text of ['30', '1y', '-1h', '1.5h', 'h', '', '1h ', '1234567d']) expect(parseDuration(text)).toBeUndefined();
  });

  it('reads instants with a zone or plain dates as UTC midnight, and refuses local times', () => {
    expect(parseInstant('2027-01-01T00:00:00Z')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(parseInstant('2027-01-01T02:00+02:00')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(parseInstant('2027-01-01')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    for (const text of ['2027-01-01T00:00:00', 'tomorrow', '2027-13-01', '2027-02-30T00:00:00Z', '1735689600']) {
      expect(parseInstant(text), text).toBeUndefined();
    }
  });
});
