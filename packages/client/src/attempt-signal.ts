import type { ClientClock } from './clock.js';

/** The signal of one attempt: the caller's, and the call's deadline. */
export interface AttemptSignal {
  signal: AbortSignal | undefined;
  /** Why the attempt was aborted by this call's deadline or the caller, if it was. */
  reason(): unknown;
  done(): void;
}

/**
 * Aborts an attempt when the caller's signal aborts or the call's deadline passes (with a `TimeoutError`).
 * @example const attempt = attemptSignal(signal, deadline, clock); try { await fetch(url, { signal: attempt.signal }) } finally { attempt.done() }
 */
export function attemptSignal(signal: AbortSignal | undefined, deadline: number, clock: ClientClock): AttemptSignal {
  if (!signal && deadline === Infinity) return { signal: undefined, reason: () => undefined, done() {} };
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal!.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    deadline === Infinity
      ? undefined
      : setTimeout(
          () => controller.abort(new DOMException('The call did not finish within its timeout.', 'TimeoutError')),
          Math.max(0, deadline - clock.now()),
        );
  return {
    signal: controller.signal,
    reason: () => (controller.signal.aborted ? controller.signal.reason : undefined),
    done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
