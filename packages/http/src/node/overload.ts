import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError, type PetStoreMetrics } from '@petstore/core';
import { JSON_CONTENT_TYPE } from '../respond.js';
import type { PetStoreLogger } from '../telemetry/request-line.js';

/** What {@link createOverloadGuard} is built from. */
export interface OverloadOptions {
  /** Requests served at once; one more is refused at once. 0: no limit. */
  maxConcurrent: number;
  /** Event-loop lag (ms) above which requests are refused until it falls again. 0: never. */
  shedLagMs: number;
  /** How often the lag is sampled, in ms. Default 50. The lag compared is smoothed: (2 × previous + sample) / 3. */
  sampleEveryMs?: number;
  /**
   * Told when shedding starts (one warn line) and when a second passes without shedding (one line with the count
   * refused), since refused requests skip the request log.
   */
  logger?: Pick<PetStoreLogger, 'warn'> | undefined;
  /** Told of each request refused (503, reason `overloaded`), which never reaches the handler's own count. */
  metrics?: Pick<PetStoreMetrics, 'requestServed'> | undefined;
  /** The base path the handler is mounted under, so its health checks are never shed. Default ''. */
  basePath?: string | undefined;
}

const SHED_BODY = JSON.stringify(new PetStoreError('unavailable').toBody());

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Load shedding in front of the handler: past `maxConcurrent` requests in flight, or while the event loop lags more
 * than `shedLagMs`, a request gets an immediate 503 `unavailable` with `Retry-After: 1`, so the requests admitted
 * keep their latency. Health checks are never shed.
 * Give it to `createHttpHandler` (`overload`) and close it when the server closes.
 * @example const overload = createOverloadGuard({ maxConcurrent: 64, shedLagMs: 0 }); createHttpHandler(store, { overload })
 */
export function createOverloadGuard(options: OverloadOptions) {
  const { maxConcurrent, shedLagMs, sampleEveryMs = 50, logger, metrics } = options;
  const healthCheck = new RegExp(`^${escaped(options.basePath?.replace(/\/+$/, '') ?? '')}/(healthz|livez)(\\?|$)`);
  const isHealthCheck = (url = '') => healthCheck.test(url);
  let inFlight = 0;
  let shed = 0;
  let episode: { since: number; shedBefore: number; seen: number; timer: NodeJS.Timeout } | undefined;
  const watchEpisode = (reason: 'requests in flight' | 'event-loop lag') => {
    if (!logger || episode) return;
    logger.warn({ reason, maxConcurrent, shedLagMs, lagMs: Math.round(lagMs) }, 'overloaded: refusing requests with 503');
    const timer = setInterval(() => {
      if (!episode || shed !== episode.seen) {
        if (episode) episode.seen = shed;
        return;
      }
      clearInterval(episode.timer);
      logger.warn({ refused: shed - episode.shedBefore, overloadedForMs: Date.now() - episode.since }, 'no longer overloaded');
      episode = undefined;
    }, 1_000).unref();
    episode = { since: Date.now(), shedBefore: shed - 1, seen: shed, timer };
  };
  let lagMs = 0;
  let sampler: NodeJS.Timeout | undefined;
  if (shedLagMs > 0) {
    let expected = performance.now() + sampleEveryMs;
    sampler = setInterval(() => {
      const now = performance.now();
      // Smoothed, so one slow tick does not shed and a stall keeps shedding for a few samples after it.
      lagMs = (2 * lagMs + Math.max(0, now - expected)) / 3;
      expected = now + sampleEveryMs;
    }, sampleEveryMs).unref();
  }
  const release = () => {
    inFlight -= 1;
  };

  return {
    /** Counts the request in, or answers it 503 and returns `false`. */
    admit(req: IncomingMessage, res: ServerResponse): boolean {
      if (isHealthCheck(req.url)) return true;
      const tooMany = maxConcurrent > 0 && inFlight >= maxConcurrent;
      if (tooMany || (shedLagMs > 0 && lagMs > shedLagMs)) {
        shed += 1;
        watchEpisode(tooMany ? 'requests in flight' : 'event-loop lag');
        // The body is not read: drop it rather than keep the socket busy with it.
        req.resume();
        res.writeHead(503, {
          'content-type': JSON_CONTENT_TYPE,
          'content-length': String(SHED_BODY.length),
          'retry-after': '1',
          'cache-control': 'no-store',
        });
        res.end(SHED_BODY);
        // Answered before any route is matched: counted apart, so a dashboard sees shedding beside outages.
        metrics?.requestServed?.({ method: req.method ?? 'GET', route: 'unmatched', status: 503, seconds: 0, reason: 'overloaded' });
        return false;
      }
      inFlight += 1;
      res.once('close', release);
      return true;
    },
    /** Requests admitted and not yet done. */
    get inFlight() {
      return inFlight;
    },
    /** Requests refused so far. */
    get shed() {
      return shed;
    },
    /** The smoothed event-loop lag, in ms (0 when lag shedding is off). */
    get lagMs() {
      return lagMs;
    },
    /** Stops sampling the lag. */
    close() {
      if (sampler) clearInterval(sampler);
      if (episode) clearInterval(episode.timer);
    },
  };
}

/** An overload guard as {@link createOverloadGuard} makes it. */
export type OverloadGuard = ReturnType<typeof createOverloadGuard>;
