// Times are stored as whole seconds from this epoch: counters hold 32-bit integers, which hold seconds from 2020
// until 2088 (Unix seconds would run out in 2038).
const STORED_TIME_EPOCH_MS = Date.UTC(2020, 0, 1);

/**
 * `ms` (epoch milliseconds) as a stored time, rounded down to its whole second.
 * @example storedSecondsBefore(Date.UTC(2020, 0, 1, 0, 0, 1, 500)) // 1
 */
export function storedSecondsBefore(ms: number): number {
  return Math.floor((ms - STORED_TIME_EPOCH_MS) / 1000);
}

/**
 * `ms` (epoch milliseconds) as a stored time, rounded up to the next whole second.
 * @example storedSecondsAfter(Date.UTC(2020, 0, 1, 0, 0, 1, 500)) // 2
 */
export function storedSecondsAfter(ms: number): number {
  return Math.ceil((ms - STORED_TIME_EPOCH_MS) / 1000);
}

/**
 * A stored time back in epoch milliseconds.
 * @example fromStoredSeconds(1) // Date.UTC(2020, 0, 1, 0, 0, 1)
 */
export function fromStoredSeconds(value: number): number {
  return STORED_TIME_EPOCH_MS + value * 1000;
}
