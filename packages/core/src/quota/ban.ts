// A ban is stored as its end, in whole seconds from this epoch: counters hold 32-bit integers, which hold
// seconds from 2020 until 2088 (Unix seconds would run out in 2038).
const BAN_EPOCH_MS = Date.UTC(2020, 0, 1);

/** The stored value of a ban of `seconds` starting at `now`; it ends on a whole second, at most `seconds` later. */
export function banValue(now: number, seconds: number): number {
  return Math.floor((now - BAN_EPOCH_MS) / 1000) + seconds;
}

/** When the ban stored as `value` ends, in epoch milliseconds. */
export function banEnd(value: number): number {
  return BAN_EPOCH_MS + value * 1000;
}
