import { fromStoredSeconds, storedSecondsBefore } from './stored-time.js';

/** The stored value of a ban of `seconds` starting at `now`; it ends on a whole second, at most `seconds` later. */
export function banValue(now: number, seconds: number): number {
  return storedSecondsBefore(now) + seconds;
}

/** When the ban stored as `value` ends, in epoch milliseconds. */
export function banEnd(value: number): number {
  return fromStoredSeconds(value);
}
