import type { ClientClock } from './clock.js';
import { PetStoreApiError } from './pet-store-api-error.js';
import { windowsOf } from './rate-limit-fields.js';
import { requestSlots } from './request-slots.js';

/** How long one call may wait before it is sent. */
export interface AdmitLimits {
  /** The longest wait the caller allows, in ms. */
  maxWait: number;
  /** Epoch ms by which the call must be over (`Infinity` for none). */
  deadline: number;
  /** The call's signal: it leaves every wait and the queue once this aborts. */
  signal: AbortSignal;
  /**
   * A call the service counts against no window of the plan (an operation with a limit of its own, `getUsage`): sent
   * while the gate is closed, in a slot like any other.
   */
  unmetered?: boolean | undefined;
}

/** Why the gate is closed: the code a refused call reports. */
type BlockCode = 'rate_limited' | 'api_key_banned';

/**
 * What one client sends, shared by all its calls. Once the service refuses a request with 429 (or says a window has
 * nothing left), no request of this client is sent until that window ends: a key that keeps sending after a refusal
 * is banned after 10 more in the same minute, and a retrying client must never get there. A wait the service names
 * is held for at most `maxBlock` ms (the client's `maxRetryWait`), so no answer, true or not, closes the client for
 * longer; a call that may not wait as long as the service asked is refused locally. When a block shorter than the
 * service asked ends, one request at a time is sent until an answer is not a refusal, so a window still spent costs
 * one refusal per `maxBlock`. At most `maxConcurrency` requests are in flight (in p-limit's queue), so fewer than
 * that can be refused before the client learns the window is spent.
 * @example const answer = await gate.send(() => fetch(url, { signal }), { maxWait: 60_000, deadline: Infinity, signal })
 */
export interface RateGate {
  /**
   * Runs `send` once a request may be sent: waits out a block the call may wait for, then takes a slot. Throws a
   * local 429 {@link PetStoreApiError} when the service asked for a longer wait than the call allows, and the
   * signal's reason once it aborts, in a wait or in the queue.
   */
  send<T>(send: () => Promise<T>, limits: AdmitLimits): Promise<T>;
  /**
   * Reads an answer's rate-limit fields: a window with nothing left closes the gate until it resets. `sentAt` is when
   * its request was sent: an answer to a request sent after the last block that is not a refusal ends probing.
   */
  observe(status: number, headers: Headers, sentAt: number): void;
  /** Closes the gate for `seconds` (at most `maxBlock`) after a 429 with that `Retry-After`. */
  refused(code: BlockCode, seconds: number): void;
}

const AGAIN = Symbol('a block began while the call was queued');

/**
 * A gate for one client.
 * @example const gate = createRateGate({ maxConcurrency: 8, maxBlock: 60_000, clock: systemClock })
 */
export function createRateGate({ maxConcurrency, maxBlock, clock }: { maxConcurrency: number; maxBlock: number; clock: ClientClock }): RateGate {
  const slots = requestSlots(maxConcurrency);
  /** When requests may be sent again. */
  let openAt = 0;
  /** Until when the service asked for quiet; later than `openAt` when its ask was longer than `maxBlock`. */
  let askedUntil = 0;
  let blockedAt = -Infinity;
  let blockedBy: BlockCode = 'rate_limited';

  const block = (code: BlockCode, ms: number) => {
    const now = clock.now();
    const asked = now + Math.max(0, ms);
    if (asked > askedUntil || code === 'api_key_banned') blockedBy = code;
    askedUntil = Math.max(askedUntil, asked);
    openAt = Math.max(openAt, now + Math.min(Math.max(0, ms), maxBlock));
    blockedAt = now;
    if (ms > maxBlock) slots.concurrency = 1;
  };

  const waitForOpen = async ({ maxWait, deadline, signal }: AdmitLimits) => {
    for (;;) {
      signal.throwIfAborted();
      const now = clock.now();
      if (now >= openAt) return;
      const asked = askedUntil - now;
      const wait = openAt - now;
      if (asked > maxWait || now + wait > deadline) {
        const seconds = Math.ceil(asked / 1000);
        throw new PetStoreApiError({
          code: blockedBy,
          status: 429,
          message: `Not sent: the service asked this client to wait ${seconds} s more (${blockedBy}), longer than this call may wait; the client sends again in ${Math.ceil(wait / 1000)} s.`,
          retryAfter: seconds,
        });
      }
      await clock.sleep(wait, signal);
    }
  };

  return {
    async send(send, limits) {
      if (limits.unmetered) return slots.run(send, limits.signal);
      for (;;) {
        await waitForOpen(limits);
        const outcome = await slots.run(async () => (clock.now() < openAt ? AGAIN : { value: await send() }), limits.signal);
        if (outcome !== AGAIN) return outcome.value;
      }
    },
    observe(status, headers, sentAt) {
      const field = headers.get('ratelimit');
      const resetIn = field
        ? windowsOf(field).filter((window) => window.remaining === 0).map((window) => window.resetIn * 1000)
        : headers.get('x-ratelimit-remaining') === '0' && Number(headers.get('x-ratelimit-reset')) > 0
          ? [Number(headers.get('x-ratelimit-reset')) * 1000 - clock.now()]
          : [];
      for (const ms of resetIn) block('rate_limited', ms);
      if (status !== 429 && resetIn.length === 0 && sentAt >= blockedAt) {
        askedUntil = Math.min(askedUntil, clock.now());
        if (slots.concurrency !== maxConcurrency) slots.concurrency = maxConcurrency;
      }
    },
    refused(code, seconds) {
      block(code, seconds * 1000);
    },
  };
}
