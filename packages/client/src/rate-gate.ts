import type { ClientClock } from './clock.js';
import { PetStoreApiError } from './pet-store-api-error.js';

/** How long one call may wait before it is sent. */
export interface AdmitLimits {
  /** The longest wait the caller allows, in ms. */
  maxWait: number;
  /** Epoch ms by which the call must be over (`Infinity` for none). */
  deadline: number;
  signal?: AbortSignal | undefined;
}

/** Why the gate is closed: the code a refused call reports. */
type BlockCode = 'rate_limited' | 'api_key_banned';

/**
 * What one client sends, shared by all its calls. Once the service refuses a request with 429 (or says a window has
 * nothing left), no request of this client is sent until that window ends: a key that keeps sending after a refusal
 * is banned after 10 more in the same minute, and a retrying client must never get there. At most `maxConcurrency`
 * requests are in flight, so fewer than that can be refused before the client learns the window is spent.
 * @example const release = await gate.admit({ maxWait: 60_000, deadline: Infinity }); try { … } finally { release() }
 */
export interface RateGate {
  /** Waits until a request may be sent and takes a slot; throws a 429 {@link PetStoreApiError} when that is too long. */
  admit(limits: AdmitLimits): Promise<() => void>;
  /** Reads an answer's rate-limit fields: a window with nothing left closes the gate until it resets. */
  observe(headers: Headers): void;
  /** Closes the gate for `seconds` after a 429 with that `Retry-After`. */
  refused(code: BlockCode, seconds: number): void;
}

/**
 * The `RateLimit` field's windows (`"minute";r=0;t=42, "day";r=9999;t=50000`), as remaining and seconds to reset.
 * @example windowsOf('"minute";r=0;t=42') // [{ remaining: 0, resetIn: 42 }]
 */
export function windowsOf(field: string): { remaining: number; resetIn: number }[] {
  return field.split(',').flatMap((item) => {
    const remaining = /;\s*r=(\d+)/.exec(item)?.[1];
    const resetIn = /;\s*t=(\d+)/.exec(item)?.[1];
    return remaining === undefined || resetIn === undefined ? [] : [{ remaining: Number(remaining), resetIn: Number(resetIn) }];
  });
}

/**
 * A gate for one client.
 * @example const gate = createRateGate({ maxConcurrency: 8, clock: systemClock })
 */
export function createRateGate({ maxConcurrency, clock }: { maxConcurrency: number; clock: ClientClock }): RateGate {
  let blockedUntil = 0;
  let blockedBy: BlockCode = 'rate_limited';
  let active = 0;
  const queue: (() => void)[] = [];

  const block = (code: BlockCode, ms: number) => {
    const until = clock.now() + ms;
    if (until > blockedUntil || code === 'api_key_banned') blockedBy = code;
    blockedUntil = Math.max(blockedUntil, until);
  };

  const release = () => {
    active--;
    queue.shift()?.();
  };

  const slot = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        const index = queue.indexOf(wake);
        if (index >= 0) queue.splice(index, 1);
        reject(signal!.reason);
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      queue.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    async admit({ maxWait, deadline, signal }) {
      for (;;) {
        if (signal?.aborted) throw signal.reason;
        const wait = blockedUntil - clock.now();
        if (wait > 0) {
          if (wait > maxWait || clock.now() + wait > deadline) {
            const seconds = Math.ceil(wait / 1000);
            throw new PetStoreApiError({
              code: blockedBy,
              status: 429,
              message: `Not sent: the service refuses this API key for ${seconds} s more (${blockedBy}), longer than this call may wait.`,
              retryAfter: seconds,
            });
          }
          await clock.sleep(wait, signal);
          continue;
        }
        if (active < maxConcurrency) {
          active++;
          let released = false;
          return () => {
            if (!released) (released = true), release();
          };
        }
        await slot(signal);
      }
    },
    observe(headers) {
      const field = headers.get('ratelimit');
      if (field) {
        for (const window of windowsOf(field)) if (window.remaining === 0) block('rate_limited', window.resetIn * 1000);
        return;
      }
      const reset = Number(headers.get('x-ratelimit-reset'));
      if (headers.get('x-ratelimit-remaining') === '0' && reset > 0) block('rate_limited', reset * 1000 - clock.now());
    },
    refused(code, seconds) {
      block(code, seconds * 1000);
    },
  };
}
