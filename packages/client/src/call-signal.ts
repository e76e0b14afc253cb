/** The signal of one whole call: it aborts when the caller's does, or when the call's `timeout` has passed. */
export interface CallSignal {
  signal: AbortSignal;
  /** Stops the timer and forgets the caller's signal. */
  done(): void;
}

/** `setTimeout` takes at most 2^31-1 ms; a longer timer fires at once. */
const LONGEST_TIMER = 2 ** 31 - 1;

/**
 * A signal for everything a call does (queue, attempts, bodies, waits): aborted with the caller's reason, or with a
 * `TimeoutError` once `timeout` ms have passed (`Infinity` for no limit).
 * @example const call = callSignal(options.signal, 30_000); try { await fetch(url, { signal: call.signal }) } finally { call.done() }
 */
export function callSignal(caller: AbortSignal | undefined, timeout: number): CallSignal {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller!.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeout === Infinity
      ? undefined
      : setTimeout(
          () => controller.abort(new DOMException(`The call did not finish within its timeout of ${timeout} ms.`, 'TimeoutError')),
          Math.min(Math.max(0, timeout), LONGEST_TIMER),
        );
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
