/**
 * Waits, if need be, until the current wall-clock minute has at least `seconds` left, so that counts a test expects
 * within one fixed 60-second window (a server's real clock, in another process or behind a proxy) do not straddle
 * two. A test that waits for up to `seconds` must allow for it in its own timeout.
 * @example await minuteWithRoom(20)
 */
export async function minuteWithRoom(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1_000) await new Promise((resolve) => setTimeout(resolve, left + 200));
}
