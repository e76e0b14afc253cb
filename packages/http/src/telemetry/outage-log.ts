import { unavailableDependency, type PetStoreError } from '@petstore/core';
import type { PetStoreLogger } from './request-line.js';

/** What {@link createOutageLog} is built from. */
export interface OutageLogOptions {
  logger: Pick<PetStoreLogger, 'error' | 'warn'>;
  /**
   * Answers whether a dependency (`database`, or `redis` with the Redis limiter) answers now; asked only during its
   * outage.
   */
  probe: (dependency: string) => Promise<boolean>;
  /** How often the probe runs while a dependency is down, in ms. Default 500. */
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
 * Turns an outage of the database (or of Redis, with its limiter) into two log lines instead of one per refused
 * request: one (error) when the first request is refused with 503 `unavailable`, one (warn) when it answers again,
 * with the number of requests refused in between and how long it lasted. Neither line carries a stack.
 * Give it to a handler (`outageLog`) and close it when the store closes.
 * @example const outageLog = createOutageLog({ logger, probe: (dependency) => service.probe(dependency) }); createHttpHandler(store, { logger, outageLog })
 */
export function createOutageLog(options: OutageLogOptions) {
  const { logger, probe, probeEveryMs = 500, now = Date.now } = options;
  // One outage per dependency: a Redis outage is logged, counted and probed apart from a database one.
  const outages = new Map<string, { since: number; refused: number; timer?: NodeJS.Timeout | undefined }>();
  let closed = false;

  const check = (dependency: string) => {
    const outage = outages.get(dependency);
    if (outage) outage.timer = undefined;
    probe(dependency).then(
      (up) => {
        const current = outages.get(dependency);
        if (!current || closed) return;
        if (!up) return schedule(dependency);
        outages.delete(dependency);
        logger.warn({ dependency, downForMs: now() - current.since, refused: current.refused }, `${dependency} available again`);
      },
      () => schedule(dependency),
    );
  };
  const schedule = (dependency: string) => {
    const outage = outages.get(dependency);
    if (!closed && outage && !outage.timer) outage.timer = setTimeout(() => check(dependency), probeEveryMs).unref();
  };

  return {
    /**
     * For every failed request. Answers `true` when the failure belongs to an outage (503 `unavailable`) and is
     * counted here, so the caller must not log it; `false` for anything else (log it with its stack).
     */
    failed(error: PetStoreError): boolean {
      if (error.code !== 'unavailable') return false;
      const dependency = unavailableDependency(error);
      const outage = outages.get(dependency);
      if (outage) {
        outage.refused += 1;
        return true;
      }
      outages.set(dependency, { since: now(), refused: 1 });
      logger.error({ dependency, cause: summary(error) }, `${dependency} unavailable: answering 503 until it returns`);
      schedule(dependency);
      return true;
    },
    /** Whether an outage is in progress. */
    get down(): boolean {
      return outages.size > 0;
    },
    /** Stops probing. */
    close() {
      closed = true;
      for (const outage of outages.values()) if (outage.timer) clearTimeout(outage.timer);
    },
  };
}

/** An outage log as {@link createOutageLog} makes it. */
export type OutageLog = ReturnType<typeof createOutageLog>;
