import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError, WEBHOOK_REFUSAL_REASONS, type PetStoreMetrics, type WebhookBacklog } from '@petstore/core';
import { JSON_CONTENT_TYPE } from '@petstore/http';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { createTally } from './tally.js';
import { version } from './version.js';

/** Writes a JSON body; the metrics listener's own answers. */
function sendJson(res: ServerResponse, status: number, payload: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, 'content-type': JSON_CONTENT_TYPE, 'content-length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

/** The counts of a `pg` pool, read when metrics are scraped. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}


/**
 * Prometheus metrics, served by `serveMetrics` on a listener of their own: `metrics` is the packages' metrics
 * interface on this registry, for the store (429s, deprecated calls) and the handler (requests, durations). Labels
 * come from the matched route template, never from the raw path. The request log line is the handler's (`logger`).
 * @example const observe = createObservability({ logger }); createHttpHandler(store, { logger, metrics: observe.metrics })
 */
export function createObservability(options: { logger: Logger }) {
  const { logger } = options;
  const registry = new Registry();
  // The two counters every request adds to are tallied here and handed to prom-client at each scrape.
  const requestTally = createTally(['method', 'route', 'status', 'reason'] as const);
  new Counter({
    name: 'petstore_http_requests_total',
    help: 'HTTP requests answered, shed ones included, by route and status; a 503 also by reason (database, redis, overloaded).',
    labelNames: ['method', 'route', 'status', 'reason'],
    registers: [registry],
    collect() {
      requestTally.into(this);
    },
  });
  const latency = new Histogram({
    name: 'petstore_http_request_duration_seconds',
    help: 'Time from request to response, by route.',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'petstore_rate_limited_total',
    help: 'Requests refused with 429, by plan (none: without a valid key) and code.',
    labelNames: ['plan', 'code'],
    registers: [registry],
  });
  const deprecatedCalls = new Counter({
    name: 'petstore_deprecated_calls_total',
    help: 'Calls of deprecated operations by operation and plan, since this process started (per key: petstore usage).',
    labelNames: ['operation', 'plan'],
    registers: [registry],
  });
  const callTally = createTally(['plan', 'operation', 'outcome'] as const);
  new Counter({
    name: 'petstore_calls_total',
    help: 'Calls of API keys and principals by plan, operation (unmatched: none) and outcome (served, rateLimited, banned, clientErrors, serverErrors); per key: petstore usage.',
    labelNames: ['plan', 'operation', 'outcome'],
    registers: [registry],
    collect() {
      callTally.into(this);
    },
  });
  const databaseWait = new Histogram({
    name: 'petstore_db_wait_seconds',
    help: 'Time waited for the database: acquire (a connection of this instance\'s pool), statement (a round trip, which behind PgBouncer includes its queue for a server connection), call (each request\'s wait for its data, also behind a statement it shares).',
    labelNames: ['stage'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'petstore_webhook_attempts_total',
    help: "Webhook delivery attempts of this instance by outcome: delivered (a 2xx), retrying (failed, due again), failed (the schedule's last).",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const webhookRefusals = new Counter({
    name: 'petstore_webhook_refusals_total',
    help: 'Webhook targets this instance refused to send to, by reason: scheme, address (not public), dns (does not resolve), redirect.',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Every label value at 0 from the start: a rate over the first failure is then not lost.
  for (const outcome of ['delivered', 'retrying', 'failed']) webhookAttempts.inc({ outcome }, 0);
  for (const reason of WEBHOOK_REFUSAL_REASONS) webhookRefusals.inc({ reason }, 0);
  // The running release as a label of a constant 1, the Prometheus idiom: joined to other series, it says which
  // instance runs what during a rolling upgrade.
  new Gauge({
    name: 'petstore_build_info',
    help: 'The release this process runs (its version label); always 1.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version }, 1);
  collectDefaultMetrics({ register: registry, prefix: 'petstore_' });

  /** `GET /metrics` and nothing else: errors in the one Error body, as on the API port. */
  const serveMetrics = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const refuse = (error: PetStoreError, headers: Record<string, string> = {}) =>
      sendJson(res, error.status, JSON.stringify(error.toBody()), headers);
    if (path !== '/metrics') return refuse(new PetStoreError('not_found'));
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(new PetStoreError('method_not_allowed'), { allow: 'GET, HEAD' });
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Could not collect metrics');
        refuse(new PetStoreError('internal_error'));
      },
    );
  };

  return {
    registry,
    /** The metrics listener's handler; never mounted on the API port. */
    serveMetrics,
    /** Reports a PostgreSQL pool's connections at each scrape. */
    watchPool(pool: PoolCounts) {
      new Gauge({
        name: 'petstore_db_pool_connections',
        help: 'PostgreSQL pool connections: total, idle, and requests waiting for one.',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          this.set({ state: 'total' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    },
    /**
     * One gauge per dependency a request needs (`petstore_dependency_up{dependency}`: 1 up, 0 down), each checked when
     * metrics are scraped, as `/healthz` checks them.
     */
    watchDependencies(dependencies: Readonly<Record<string, () => Promise<boolean>>>) {
      new Gauge({
        name: 'petstore_dependency_up',
        help: 'Whether a dependency every request needs answers (1) or not (0), checked at each scrape: database, redis.',
        labelNames: ['dependency'],
        registers: [registry],
        async collect() {
          const entries = Object.entries(dependencies);
          const up = await Promise.all(entries.map(([, check]) => check().catch(() => false)));
          entries.forEach(([dependency], i) => this.set({ dependency }, up[i] ? 1 : 0));
        },
      });
    },
    /**
     * The webhook backlog of the whole database (`petstore_webhook_deliveries_pending`,
     * `petstore_webhook_oldest_pending_seconds`), read at each scrape: one statement for both gauges, never two at
     * once (a scrape while one is still out waits for it). An answer not back within `timeoutMs` (the database is
     * down or slow) makes both NaN for that scrape, and the rest of the scrape is served as usual.
     */
    watchWebhookBacklog(backlog: () => Promise<WebhookBacklog>, options: { timeoutMs?: number } = {}) {
      const timeoutMs = options.timeoutMs ?? 1000;
      let reading: Promise<WebhookBacklog | undefined> | undefined;
      const read = () =>
        (reading ??= new Promise<WebhookBacklog | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), timeoutMs);
          backlog().then(
            (answer) => resolve(answer),
            (error: unknown) => {
              logger.debug({ err: error }, 'webhook backlog could not be read for metrics');
              resolve(undefined);
            },
          ).finally(() => {
            clearTimeout(timer);
            reading = undefined;
          });
        }));
      new Gauge({
        name: 'petstore_webhook_deliveries_pending',
        help: 'Webhook deliveries still to send on the whole database, every instance\'s (due now or waiting for a retry); NaN when it could not be read.',
        registers: [registry],
        async collect() {
          this.set((await read())?.pending ?? Number.NaN);
        },
      });
      new Gauge({
        name: 'petstore_webhook_oldest_pending_seconds',
        help: 'Age of the oldest pending webhook delivery on the whole database, from its event; 0 when none is pending, NaN when it could not be read.',
        registers: [registry],
        async collect() {
          this.set((await read())?.oldestPendingSeconds ?? Number.NaN);
        },
      });
    },
    /** The packages' metrics interface on this registry. */
    metrics: {
      requestServed({ method, route, status, seconds, reason }) {
        requestTally.add(method, route, status, reason);
        // A shed request never reached a route: its time says nothing of the service's latency.
        if (reason !== 'overloaded') latency.observe({ method, route }, seconds);
      },
      rateLimited: ({ plan, code }) => refused.inc({ plan, code }),
      deprecatedCall: ({ operationId, plan }) => deprecatedCalls.inc({ operation: operationId, plan }),
      callCounted: ({ plan, operationId, outcome }) => callTally.add(plan, operationId, outcome),
      databaseWait: ({ stage, seconds }) => databaseWait.observe({ stage }, seconds),
      webhookAttempt({ outcome, refused }) {
        webhookAttempts.inc({ outcome });
        if (refused) webhookRefusals.inc({ reason: refused });
      },
    } satisfies PetStoreMetrics,
  };
}
