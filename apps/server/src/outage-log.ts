import type { PetStoreError } from '@petstore/core';
import type { Logger } from 'pino';

/** What {@link createOutageLog} is built from. */
export interface OutageLogOptions {
  logger: Pick<Logger, 'error' | 'warn'>;
  /** Answers whether the database answers now (the pet store's `isHealthy`); asked only during an outage. */
  probe: () => Promise<boolean>;
  /** How often the probe runs while the database is down, in ms. Default 500. */
  probeEveryMs?: number;
  /** The wall clock in ms; tests move it. */
  now?: () => number;
}

/** The code, errno and message of the deepest cause, without a stack: an outage is expected, not a fault. */
function summary(error: unknown): { code?: string; message: string } {
  let deepest: unknown = error;
  while (deepest instanceof Error && deepest.cause !== undefined) deepest = deepest.cause;
  if (!(deepest instanceof Error)) return { message: String(deepest) };
  const code = (deepest as { code?: unknown }).code;
  return { ...(typeof code === 'string' ? { code } : {}), message: deepest.message };
}

/**
 * Turns a database outage into two log lines instead of one per refused request: one (error) when the first
 * request is refused with 503 `unavailable`, one (warn) when the database answers again, with the number of
 * requests refused in between and how long it lasted. Neither line carries a stack.
 * @example const outage = createOutageLog({ logger, probe: () => store.isHealthy() }); if (!outage.failed(error)) logFault(error)
 */
export function createOutageLog(options: OutageLogOptions) {
  const { logger, probe, probeEveryMs = 500, now = Date.now } = options;
  let outage: { since: number; refused: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const check = () => {
    timer = undefined;
    probe().then(
      (up) => {
        if (!outage || closed) return;
        if (!up) return schedule();
        const { since, refused } = outage;
        outage = undefined;
        logger.warn({ dependency: 'database', downForMs: now() - since, refused }, 'database available again');
      },
      () => schedule(),
    );
  };
  const schedule = () => {
    if (!closed && outage && !timer) timer = setTimeout(check, probeEveryMs).unref();
  };

  return {
    /**
     * For every failed request. Answers `true` when the failure belongs to an outage (503 `unavailable`) and is
     * counted here, so the caller must not log it; `false` for anything else (log it with its stack).
     */
    failed(error: PetStoreError): boolean {
      if (error.code !== 'unavailable') return false;
      if (outage) {
        outage.refused += 1;
        return true;
      }
      outage = { since: now(), refused: 1 };
      logger.error({ dependency: 'database', cause: summary(error) }, 'database unavailable: answering 503 until it returns');
      schedule();
      return true;
    },
    /** Whether an outage is in progress. */
    get down(): boolean {
      return outage !== undefined;
    },
    /** Stops probing. */
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** An outage log as {@link createOutageLog} makes it. */
export type OutageLog = ReturnType<typeof createOutageLog>;
