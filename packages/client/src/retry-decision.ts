import { fullJitterBackoff } from './backoff.js';
import type { RateGate } from './rate-gate.js';

/** An answer that is not a success, as a retry decision needs it. */
export interface Refusal {
  status: number;
  /** The Error body's code. */
  code: string;
  /** `Retry-After`, in seconds. */
  retryAfter: number | undefined;
}

/**
 * How long to wait before retrying a refused attempt, or undefined when it must not be retried: a 429
 * `rate_limited` waits its `Retry-After` (and closes the gate for every call until then), a 503 its `Retry-After` or
 * a backoff, and a 409 `idempotency_key_reused` whose first request still runs (it says `Retry-After`, or an attempt
 * of ours got no answer) its `Retry-After` or a backoff.
 * `api_key_banned` and every other answer are final. Without `gate` (the 429 of an operation's own limit), the gate stays
 * as it is.
 * @example const wait = retryWait({ status: 503, code: 'unavailable', retryAfter: 1 }, 0, false, gate) // 1000
 */
export function retryWait(refusal: Refusal, attempt: number, unanswered: boolean, gate: Pick<RateGate, 'refused'> | undefined): number | undefined {
  const retryAfterMs = refusal.retryAfter === undefined ? undefined : refusal.retryAfter * 1000;
  if (refusal.status === 429) {
    const banned = refusal.code === 'api_key_banned';
    if (refusal.retryAfter !== undefined) gate?.refused(banned ? 'api_key_banned' : 'rate_limited', refusal.retryAfter);
    return banned ? undefined : (retryAfterMs ?? fullJitterBackoff(attempt));
  }
  if (refusal.status === 503) return retryAfterMs ?? fullJitterBackoff(attempt);
  // The same key while its first request runs: the service says when to come back; after an attempt whose answer
  // was lost, that first request may be our own even without it.
  if (refusal.status === 409 && refusal.code === 'idempotency_key_reused' && (retryAfterMs !== undefined || unanswered)) {
    return retryAfterMs ?? fullJitterBackoff(attempt);
  }
  return undefined;
}

/** Whether the gate, not the caller, waits out this refusal: a 429 that said how long. */
export const gateWaits = (refusal: Refusal): boolean => refusal.status === 429 && refusal.retryAfter !== undefined;
