import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { Attempt, DueDelivery, WebhookRepository } from '../storage/webhook-repository.js';
import { eventData } from '../storage/webhook-repository.js';
import type { SendDelivery } from './transport.js';
import { signDelivery } from './signatures.js';
import { type RefusalReason, TargetRefusedError } from './targets.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** DECISIONS "Events": retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then failed. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);

/** The largest body a delivery sends (DECISIONS: payloads under 64 KiB). */
const MAX_BODY_BYTES = 64 * 1024;

/** How one attempt ended, for logs and metrics (never a per-endpoint label: the endpoint id is for the log line). */
export interface AttemptOutcome {
  outcome: 'delivered' | 'retrying' | 'failed';
  deliveryId: number;
  endpointId: number;
  eventId: string;
  type: string;
  attempt: number;
  status?: number | undefined;
  error?: string | undefined;
  /** Set when the target was refused by the rule (a private address, a redirect, …). */
  refused?: RefusalReason | undefined;
  /** Whether this failure disabled the endpoint (5 days of failures). */
  disabled: boolean;
}

/** The durations and bounds of delivery; each has the default DECISIONS gives. */
export interface DeliveryTuning {
  /** Waits before each retry, in ms; after the last, the delivery fails. Default {@link DEFAULT_RETRY_SCHEDULE_MS}. */
  retryScheduleMs?: readonly number[] | undefined;
  /**
   * How often an idle instance looks for due deliveries (ms, default 5000): for changes made through other instances
   * that could not send them (they stopped) and for leases that ran out. A change through this instance wakes it at
   * once, and a retry it scheduled wakes it when due.
   */
  pollMs?: number | undefined;
  /** Sends in flight at once per instance (default 16). */
  concurrency?: number | undefined;
  /** A send's whole time, DNS included, before it counts as failed (ms, default 15000). */
  timeoutMs?: number | undefined;
  /** How long an instance holds a delivery it took (ms, default 60000): another takes it only after, if it died. */
  leaseMs?: number | undefined;
  /** An endpoint failing this long straight is disabled (ms, default 5 days). */
  disableAfterMs?: number | undefined;
  /** Events (and their deliveries) are kept this long (ms, default 30 days). */
  retentionMs?: number | undefined;
  /** How often old events are pruned (ms, default 1 hour). */
  pruneEveryMs?: number | undefined;
  /**
   * Deliveries yield to requests: while changes keep coming through this instance and its event loop is busier
   * than this share of the time (0 to 1, default 0.8, measured over windows of at least 100 ms), it takes due
   * deliveries only once every `busyClaimEveryMs`; they catch up when the load drops. 1: never yield.
   */
  busyUtilization?: number | undefined;
  /** How often a busy instance still takes due deliveries (ms, default 1000), so they never stop altogether. */
  busyClaimEveryMs?: number | undefined;
}

/** What the delivery worker is built from. */
export interface DeliveryWorkerOptions extends DeliveryTuning {
  repository: WebhookRepository;
  send: SendDelivery;
  clock: Clock;
  /** Told of every attempt. */
  onAttempt?: ((attempt: AttemptOutcome) => void) | undefined;
  /** Told when the database failed the worker (it tries again at its next poll). */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * This process alone delivers from this database (the embedded one, whose folder one process holds at a time):
   * the leases a process that died left are ended when the worker starts, and its deliveries are sent at once
   * instead of once their leases run out. Never set it where another instance may be sending. Default false.
   */
  soleWorker?: boolean | undefined;
}

/** The instance's delivery worker. */
export interface DeliveryWorker {
  /** Looks for due deliveries soon: a change was just made through this instance. */
  nudge(): void;
  /** An endpoint was just registered through this instance: changes from now on may have deliveries. */
  endpointAdded(): void;
  /**
   * Stops taking deliveries, lets the sends in flight finish for up to `graceMs`, then aborts the rest and hands
   * them back unattempted for another instance (or the next start) to send.
   */
  close(graceMs?: number): Promise<void>;
}

/** The body of a delivery: `{ type, timestamp, data }`, `data` as the API returns the record. */
export const deliveryBody = (delivery: DueDelivery): string =>
  JSON.stringify({ type: delivery.type, timestamp: delivery.timestamp.toISOString(), data: eventData(delivery.type, delivery.row) });

/**
 * Sends the due deliveries of every endpoint from this instance: takes up to `concurrency` at a time (each held by a
 * lease, so that every instance of a fleet can run one and none sends a delivery another holds), signs each, posts
 * it, and records the attempt: delivered on a 2xx, else due again after the schedule's next wait, or failed. Polls
 * every `pollMs`, soon after `nudge()`, and when a retry it scheduled is due. Per-endpoint order is not kept;
 * `webhook-id` lets receivers deduplicate.
 * @example const worker = startDeliveryWorker({ repository, send, clock }); worker.nudge(); await worker.close()
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { repository, send, clock, onAttempt, onError } = options;
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const pollMs = options.pollMs ?? 5 * SECOND;
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 15 * SECOND;
  const leaseMs = options.leaseMs ?? MINUTE;
  const disableAfterMs = options.disableAfterMs ?? 5 * DAY;
  const retentionMs = options.retentionMs ?? 30 * DAY;
  const pruneEveryMs = options.pruneEveryMs ?? HOUR;
  const busyUtilization = options.busyUtilization ?? 0.8;
  const busyClaimEveryMs = options.busyClaimEveryMs ?? SECOND;

  const inFlight = new Map<number, { done: Promise<void>; abort: AbortController }>();
  let closed = false;
  let claiming: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let nextPruneAt = 0;
  // A sole worker first ends the leases an earlier process left (until that succeeds, it claims nothing).
  let leasesToEnd = options.soleWorker === true;
  // Whether requests keep this instance busy: changes came within the last second, and the event loop was busier
  // than `busyUtilization` over the last window of at least 100 ms.
  let lastChangeAt = Number.NEGATIVE_INFINITY;
  let eluMark = performance.eventLoopUtilization();
  let eluMarkAt = Date.now();
  let loopBusy = false;
  let lastClaimAt = Number.NEGATIVE_INFINITY;
  // Whether any endpoint exists, as last read (at most once a poll interval, and never on a change's nudge): while
  // none does, nothing can be due and a change costs the worker nothing, not even a statement. An endpoint
  // registered through another instance is seen at the next read.
  let anyEndpoint = true;
  let endpointsReadAt = Number.NEGATIVE_INFINITY;
  function busy(at: number): boolean {
    if (at - eluMarkAt >= 100) {
      loopBusy = performance.eventLoopUtilization(eluMark).utilization > busyUtilization;
      eluMark = performance.eventLoopUtilization();
      eluMarkAt = at;
    }
    return loopBusy && at - lastChangeAt < SECOND;
  }

  /** Looks for due deliveries within `ms` (an earlier wake already set stands). */
  function wakeIn(ms: number) {
    const at = Date.now() + ms;
    if (closed || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timerAt = Infinity;
      // A timer may fire a little early (it counts from the event loop's cached time): wait out the rest, or the
      // claim finds nothing due yet and the next look is the idle poll.
      const early = at - Date.now();
      if (early > 0) wakeIn(early);
      else tick();
    }, ms);
    timer.unref();
  }

  async function attempt(delivery: DueDelivery, stop: AbortController) {
    const body = deliveryBody(delivery);
    let result: Attempt;
    let refused: RefusalReason | undefined;
    try {
      if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new Error('the body is over 64 KiB');
      const headers = signDelivery(delivery.eventId, new Date(clock.now()), body, delivery.secrets);
      const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(timeoutMs)]);
      const status = await send({ url: delivery.url, headers: { ...headers }, body, signal });
      result = status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` };
    } catch (error) {
      if (stop.signal.aborted) {
        await repository.release(delivery).catch(onError);
        return;
      }
      if (error instanceof TargetRefusedError) refused = error.reason;
      const timedOut = (error as Error).name === 'TimeoutError';
      result = { ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message || String(error) };
    }
    const now = new Date(clock.now());
    if (!result.ok) {
      const wait = schedule[delivery.attempt - 1];
      if (wait !== undefined) result.retryAt = new Date(now.getTime() + wait);
    }
    const { disabled } = await repository.settle(delivery, result, now, new Date(now.getTime() - disableAfterMs));
    if (!result.ok && result.retryAt) wakeIn(result.retryAt.getTime() - now.getTime());
    onAttempt?.({
      outcome: result.ok ? 'delivered' : result.retryAt ? 'retrying' : 'failed',
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      eventId: delivery.eventId,
      type: delivery.type,
      attempt: delivery.attempt,
      status: result.status,
      error: result.ok ? undefined : result.error,
      refused,
      disabled,
    });
  }

  function start(delivery: DueDelivery) {
    const stop = new AbortController();
    const done = attempt(delivery, stop)
      .catch(onError)
      .finally(() => {
        inFlight.delete(delivery.id);
        // There may be more due than the last claim could take: claim again once half the slots are free, so each
        // claim takes several (claiming at every free slot took one delivery per statement).
        if (again && inFlight.size <= concurrency / 2) wakeIn(0);
      });
    inFlight.set(delivery.id, { done, abort: stop });
  }

  function tick() {
    if (closed) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claim().finally(() => {
      claiming = undefined;
      wakeIn(again && inFlight.size < concurrency ? 0 : pollMs);
    });
  }

  async function claim() {
    try {
      if (leasesToEnd) {
        await repository.endLeases();
        leasesToEnd = false;
      }
      const now = clock.now();
      if (now >= nextPruneAt) {
        nextPruneAt = now + pruneEveryMs;
        await repository.prune(new Date(now - retentionMs));
      }
      const room = concurrency - inFlight.size;
      again = false;
      const at = Date.now();
      if (at - endpointsReadAt >= pollMs) {
        endpointsReadAt = at;
        anyEndpoint = await repository.anyEndpoint();
      }
      if (!anyEndpoint) return;
      if (room > 0 && busy(at) && at - lastClaimAt < busyClaimEveryMs) {
        // Requests first: look again when a busy instance may take its next deliveries.
        wakeIn(busyClaimEveryMs - (at - lastClaimAt));
      } else if (room > 0) {
        lastClaimAt = at;
        const due = await repository.claim(room, new Date(now), new Date(now + leaseMs));
        // Taken as the instance began to stop: handed back at once.
        for (const delivery of due) closed ? await repository.release(delivery) : start(delivery);
        // A tick that came while this claim waited on the database (again) still counts.
        again ||= due.length === room;
      } else again = true;
    } catch (error) {
      onError?.(error);
    }
  }

  let nudged = false;
  wakeIn(0);
  return {
    nudge() {
      lastChangeAt = Date.now();
      if (nudged || closed || !anyEndpoint) return;
      nudged = true;
      setImmediate(() => {
        nudged = false;
        tick();
      });
    },
    endpointAdded() {
      anyEndpoint = true;
    },
    async close(graceMs = 5 * SECOND) {
      closed = true;
      clearTimeout(timer);
      await claiming;
      const pending = [...inFlight.values()];
      const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([Promise.all(pending.map((sending) => sending.done)), grace]);
      for (const sending of inFlight.values()) sending.abort.abort();
      await Promise.all([...inFlight.values()].map((sending) => sending.done));
    },
  };
}
