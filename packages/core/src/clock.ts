/**
 * The source of time for windows, bans, sunsets and timestamps. Inject one in tests to move time.
 * @example const clock: Clock = { now: () => Date.parse('2030-12-05T00:00:00Z') }
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
