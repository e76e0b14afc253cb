import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PetStoreError, type PetStoreMetrics } from '@petstore/core';
import { ANSWER_HEADERS } from '../answer-headers.js';
import { JSON_CONTENT_TYPE } from '../respond.js';
import { knownMethod } from '../telemetry/known-method.js';
import type { PetStoreLogger } from '../telemetry/request-line.js';
import { TOP_RANK } from '../trust-rank.js';
import { declaresBody } from './body-pieces.js';
import { closeAfterAnswer } from './closing-answer.js';
import { createEventLoopLoad, type EventLoopLoad } from './event-loop-load.js';

// The rank a response's request was admitted at, on the response itself (a weak map's entry per request costs the
// garbage collector more than a property).
const RANK = Symbol('petstore.rank');
type Ranked = ServerResponse & { [RANK]?: number };

/** What {@link createOverloadGuard} is built from. */
export interface OverloadOptions {
  /**
   * A memory guard, not a throughput limit: requests in flight past which one more is refused. Set it far above what
   * a burst of requests waiting on the network reaches (they cost memory, not CPU). 0: no limit.
   */
  maxConcurrent: number;
  /** The event loop's mean delay (ms, over the last sample interval) above which requests are refused. 0: never. */
  shedLagMs: number;
  /** The event loop's utilisation (0 to 1, over the last sample interval) above which requests are refused. 0: never. */
  shedUtilization?: number | undefined;
  /**
   * How often the event loop is measured, in ms (each measure covers the interval before it), how often shedding
   * moves one rank up or down, and after how long without a refusal the episode's closing line is logged. Default 1000.
   */
  sampleEveryMs?: number | undefined;
  /**
   * How long the guard may refuse every request for want of a free slot while no admitted request ends, before it
   * calls itself wedged (`live` false), in ms. Default 30 s.
   */
  wedgedAfterMs?: number | undefined;
  /**
   * Told when shedding starts (one warn line) and when a second passes without shedding (one line with the count
   * refused), since refused requests skip the request log.
   */
  logger?: Pick<PetStoreLogger, 'warn'> | undefined;
  /** Told of each refused request: status 503 with the reason `overloaded`, route `shed`. */
  metrics?: Pick<PetStoreMetrics, 'requestServed'> | undefined;
  /** The base path the handler is mounted under, so its health checks are never shed. Default ''. */
  basePath?: string | undefined;
}

/** Why a request was refused: the memory guard, or the event loop as measured. */
export type ShedReason = 'requests in flight' | 'event-loop delay' | 'event-loop utilization';

const SHED_BODY = JSON.stringify(new PetStoreError('unavailable').toBody());
const SHED_HEADERS = Object.freeze({
  ...ANSWER_HEADERS,
  'content-type': JSON_CONTENT_TYPE,
  'content-length': String(SHED_BODY.length),
  'retry-after': '1',
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Load shedding in front of the handler. A request is refused with an immediate 503 `unavailable` and
 * `Retry-After: 1` only while the process is overloaded as measured (the event loop's delay or utilisation over the
 * last second), or when `maxConcurrent` requests are already in flight (a memory guard); and it sheds who pays least
 * first: requests without a key, then the lowest plans (by the rank `admit` is given). While overloaded, each sample
 * interval sheds the next rank up, and each interval not overloaded lets one back; of the slots, requests without a
 * key may fill half, the lowest plan three quarters, the next seven eighths, the top plans all. Health checks are
 * never shed. A request's slot is given back when its response ends or its connection closes, whichever comes first, so
 * pipelined requests on a connection that dies cannot keep theirs.
 * Give it to `createHttpHandler` (`overload`) and close it when the server closes.
 * @example const overload = createOverloadGuard({ maxConcurrent: 1024, shedLagMs: 500 }); createHttpHandler(store, { overload })
 */
export function createOverloadGuard(options: OverloadOptions) {
  const { maxConcurrent, shedLagMs, shedUtilization = 0, logger, metrics, wedgedAfterMs = 30_000, sampleEveryMs = 1_000 } = options;
  const healthCheck = new RegExp(`^${escaped(options.basePath?.replace(/\/+$/, '') ?? '')}/(healthz|livez)(\\?|$)`);
  const isHealthCheck = (url = '') => healthCheck.test(url);
  const load: EventLoopLoad | undefined =
    shedLagMs > 0 || shedUtilization > 0 ? createEventLoopLoad({ sampleEveryMs }) : undefined;
  let inFlight = 0;
  // The requests in flight by rank: a rank's share bounds the slots held by it and the ranks below it together.
  const byRank: number[] = new Array(TOP_RANK + 1).fill(0);
  let shed = 0;
  // When the guard last filled up, or a request last ended since: full, with neither for a while, is wedged.
  let stuckSince = 0;
  // The slots held by each connection's requests: one given back as each response ends, and all that are left when
  // the connection closes (Node ends no response still queued behind another on a connection that dies).
  const held = new WeakMap<Socket, { slots: number[] }>();
  const releaseAll = function (this: Socket) {
    const connection = held.get(this);
    held.delete(this);
    if (connection) connection.slots.forEach((slots, rank) => release(slots, rank));
  };
  const releaseOne = function (this: ServerResponse) {
    const connection = held.get(this.req.socket);
    const rank = (this as Ranked)[RANK];
    if (!connection || rank === undefined) return;
    connection.slots[rank]! -= 1;
    release(1, rank);
  };
  const release = (slots: number, rank: number) => {
    inFlight -= slots;
    byRank[rank]! -= slots;
    stuckSince = Date.now();
  };
  /** The requests in flight of `rank` and of every rank below it. */
  const heldUpTo = (rank: number) => {
    let slots = 0;
    for (let r = 0; r <= rank; r++) slots += byRank[r]!;
    return slots;
  };

  let episode: { since: number; shedBefore: number; seen: number; timer: NodeJS.Timeout } | undefined;
  const watchEpisode = (reason: ShedReason) => {
    if (!logger || episode) return;
    const measured = load ? { delayMs: Math.round(load.delayMs), utilization: Math.round(load.utilization * 100) / 100 } : {};
    logger.warn({ reason, maxConcurrent, shedLagMs, shedUtilization, ...measured }, 'overloaded: refusing requests with 503');
    const timer = setInterval(() => {
      if (!episode || shed !== episode.seen) {
        if (episode) episode.seen = shed;
        return;
      }
      clearInterval(episode.timer);
      logger.warn({ refused: shed - episode.shedBefore, overloadedForMs: Date.now() - episode.since }, 'no longer overloaded');
      episode = undefined;
    }, sampleEveryMs).unref();
    episode = { since: Date.now(), shedBefore: shed - 1, seen: shed, timer };
  };

  const loaded = (): ShedReason | undefined => {
    if (!load) return undefined;
    if (shedLagMs > 0 && load.delayMs > shedLagMs) return 'event-loop delay';
    if (shedUtilization > 0 && load.utilization > shedUtilization) return 'event-loop utilization';
    return undefined;
  };
  // Who is shed while the event loop is overloaded: requests of a rank below `level`. Each sample interval still
  // overloaded sheds the next rank up (key-less first, then the lowest plans); each one that is not lets it back.
  let level = 0;
  let levelAt = 0;
  const shedBelow = (): number => {
    if (!load) return 0;
    const now = Date.now();
    if (now - levelAt >= sampleEveryMs) {
      levelAt = now;
      level = loaded() !== undefined ? Math.min(level + 1, TOP_RANK + 1) : Math.max(level - 1, 0);
    }
    return level;
  };
  // The slots a rank may fill together with the ranks below it: half for requests without a key, then three quarters,
  // seven eighths, and all of them for the top plans, so that a lower rank's flood always leaves the higher ones room;
  // what higher ranks hold counts only against the whole, so a client not yet known (ranked low) is still served
  // beside a top plan's many requests.
  const slotsFor = (rank: number) => (rank >= TOP_RANK ? maxConcurrent : maxConcurrent * (1 - 2 ** -(rank + 1)));
  const overloaded = (rank: number): ShedReason | undefined => {
    if (maxConcurrent > 0 && (inFlight >= maxConcurrent || heldUpTo(rank) >= slotsFor(rank))) return 'requests in flight';
    if (rank < shedBelow()) return loaded() ?? 'event-loop delay';
    return undefined;
  };

  function refuse(req: IncomingMessage, res: ServerResponse, reason: ShedReason) {
    shed += 1;
    watchEpisode(reason);
    // Answered from the headers: a body still to come is not read, and its connection closes after the answer (with
    // a short linger), so a flood shed with its bodies unsent holds no socket (DECISIONS "Hostile clients").
    if (!req.complete && declaresBody(req)) {
      const headers = { ...SHED_HEADERS };
      closeAfterAnswer(req, headers);
      res.writeHead(503, headers);
    } else {
      req.resume();
      res.writeHead(503, SHED_HEADERS);
    }
    res.end(SHED_BODY);
    metrics?.requestServed?.({ method: knownMethod(req.method ?? 'GET'), route: 'shed', status: 503, seconds: 0, reason: 'overloaded' });
  }

  function hold(req: IncomingMessage, res: ServerResponse, rank: number) {
    inFlight += 1;
    byRank[rank]! += 1;
    if (inFlight === maxConcurrent) stuckSince = Date.now();
    const socket = req.socket;
    const connection = held.get(socket);
    if (connection) connection.slots[rank]! += 1;
    else {
      const slots: number[] = new Array(TOP_RANK + 1).fill(0);
      slots[rank] = 1;
      held.set(socket, { slots });
      socket.once('close', releaseAll);
    }
    (res as Ranked)[RANK] = rank;
    res.once('close', releaseOne);
  }

  return {
    /**
     * Counts the request in, or answers it 503 and returns `false`. `rank` is what its caller has earned, from its
     * headers (`pipeline.rankOf`: 0 without a key, up to 3 for the top plans); without one it is shed first.
     */
    admit(req: IncomingMessage, res: ServerResponse, rank = 0): boolean {
      if (isHealthCheck(req.url)) return true;
      const ranked = Math.max(0, Math.min(TOP_RANK, Math.floor(rank)));
      const reason = overloaded(ranked);
      if (reason !== undefined) {
        refuse(req, res, reason);
        return false;
      }
      hold(req, res, ranked);
      return true;
    },
    /**
     * Whether the process still serves: false once every request has been refused for want of a slot for
     * `wedgedAfterMs` while no admitted request ended (slots that nothing gives back), for a liveness probe.
     */
    get live() {
      return !(maxConcurrent > 0 && inFlight >= maxConcurrent && Date.now() - stuckSince >= wedgedAfterMs);
    },
    /** Requests admitted and not yet done. */
    get inFlight() {
      return inFlight;
    },
    /** Requests refused so far. */
    get shed() {
      return shed;
    },
    /** The event loop's mean delay over the last second, in ms (0 when not measured). */
    get lagMs() {
      return load?.delayMs ?? 0;
    },
    /** The event loop's utilisation over the last second, 0 to 1 (0 when not measured). */
    get utilization() {
      return load?.utilization ?? 0;
    },
    /** Stops measuring. */
    close() {
      load?.close();
      if (episode) clearInterval(episode.timer);
    },
  };
}

/** An overload guard as {@link createOverloadGuard} makes it. */
export type OverloadGuard = ReturnType<typeof createOverloadGuard>;
