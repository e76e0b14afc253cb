import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';

/** What {@link createEventLoopLoad} is built from. */
export interface EventLoopLoadOptions {
  /** How often the measures are taken, in ms; each covers the interval before it. Default 1000. */
  sampleEveryMs?: number | undefined;
  /** The resolution of the delay histogram, in ms. Default 10. */
  resolutionMs?: number | undefined;
}

/** The load of this process's event loop over the last sample interval. */
export interface EventLoopLoad {
  /**
   * The mean event-loop delay over the last interval, in ms, less the histogram's resolution; `Infinity` when the
   * loop was blocked for the whole interval (no sample could be taken).
   */
  readonly delayMs: number;
  /** The share of the last interval the event loop spent busy, 0 to 1. */
  readonly utilization: number;
  /** Stops measuring. */
  close(): void;
}

/**
 * Measures the event loop the way `@fastify/under-pressure` does, with Node's own `perf_hooks`: the mean of a delay
 * histogram and the event-loop utilisation, both over the last sample interval. No JavaScript runs per sample of the
 * histogram; one timer a second reads and resets it.
 * @example const load = createEventLoopLoad(); if (load.delayMs > 500) shed()
 */
export function createEventLoopLoad(options: EventLoopLoadOptions = {}): EventLoopLoad {
  const { sampleEveryMs = 1_000, resolutionMs = 10 } = options;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let delayMs = 0;
  let utilization = 0;
  const timer = setInterval(() => {
    // No sample in a whole interval: the loop never came round to the histogram's timer.
    delayMs = histogram.count === 0 ? Number.POSITIVE_INFINITY : Math.max(0, histogram.mean / 1e6 - resolutionMs);
    histogram.reset();
    const now = performance.eventLoopUtilization();
    utilization = performance.eventLoopUtilization(now, last).utilization;
    last = now;
  }, sampleEveryMs).unref();
  return {
    get delayMs() {
      return delayMs;
    },
    get utilization() {
      return utilization;
    },
    close() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
