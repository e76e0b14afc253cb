import type { CountedRequest } from '../service/admission.js';
import { operations } from '../operations/operations.js';
import type { UsageOutcome } from '../usage/usage-ledger.js';
import type { AttemptOutcome } from '../webhooks/delivery-worker.js';
import type { RefusalReason } from '../webhooks/targets.js';

/** Why a request was answered 503 `unavailable`: which dependency could not be reached, or load shedding. */
export type UnavailableReason = 'database' | 'redis' | 'overloaded';

/**
 * Where the handlers and the store report what a dashboard counts. Every method is optional; the server's Prometheus
 * registry implements them all, and a host can implement them with its own metrics library. Labels are bounded:
 * route templates, never raw paths.
 * @example const metrics: PetStoreMetrics = { requestServed: ({ route, status }) => counter.add(1, { route, status }) }
 */
export interface PetStoreMetrics {
  /**
   * An HTTP request answered: method (one of RFC 9110's, `PATCH` or `QUERY`; any other as `_OTHER`), route template
   * (`unmatched` when none, `shed` when refused before routing), status, seconds to its response, and on a 503 why:
   * the database or Redis could not be reached, or the process shed it (`overloaded`).
   */
  requestServed?(request: { method: string; route: string; status: number; seconds: number; reason?: UnavailableReason }): void;
  /** A request refused with 429: the plan counted against (`none` without a valid key) and the code. */
  rateLimited?(refusal: { plan: string; code: string }): void;
  /** A call of a deprecated operation by an API key (of `plan`): label it by plan, never by key, to stay bounded. */
  deprecatedCall?(call: { operationId: string; keyId: number; plan: string }): void;
  /**
   * A call of a key or principal, as the usage ledger counts it: its plan, its operation (`unmatched` when it named
   * none) and how it ended. Per key, the ledger (`store.usage`) is the place; metrics stay per plan.
   */
  callCounted?(call: { plan: string; operationId: string; outcome: UsageOutcome }): void;
  /**
   * A wait for the database. On PostgreSQL opened by URL: `acquire`, for a connection of the store's pool (its queue);
   * `statement`, one statement's round trip, which behind PgBouncer includes PgBouncer's wait for a server connection.
   * On either database, `call`: one wait of a request for the store's data (a read or write of animals or orders, or
   * its count on the PostgreSQL quota store), from asking to the answer. A statement can serve many requests at once
   * (grouped creates, one count for a key's concurrent requests, one load of a cached page), and the requests queued
   * behind it wait with it: `call` has them all, one each, where `statement` has the one statement.
   */
  databaseWait?(wait: { stage: 'acquire' | 'statement' | 'call'; seconds: number }): void;
  /**
   * A webhook delivery attempt of this instance: how it ended (`delivered`, `retrying`, or `failed` after the last
   * retry), and when the target was refused by the address rule, why (one of {@link WEBHOOK_REFUSAL_REASONS}). Never
   * label it by endpoint: the log line has the endpoint.
   */
  webhookAttempt?(attempt: { outcome: AttemptOutcome['outcome']; refused?: RefusalReason | undefined }): void;
}

/** The webhook deliveries still to send, fleet-wide, as `store.webhookBacklog()` reads them when metrics are scraped. */
export interface WebhookBacklog {
  /** Deliveries pending: due now, or waiting for a retry. */
  pending: number;
  /** How long the oldest pending delivery has waited since its event, in seconds; 0 when none is pending. */
  oldestPendingSeconds: number;
}

const refusals: Record<RefusalReason, true> = { scheme: true, address: true, dns: true, redirect: true };

/** Every reason a webhook target is refused for: the values of a refusals metric's label, known before any happens. */
export const WEBHOOK_REFUSAL_REASONS = Object.freeze(Object.keys(refusals) as RefusalReason[]);

/**
 * The store's counted requests as metrics: 429s by plan and code, deprecated calls by operation and key.
 * @example createPetStore({ db, onRequestCounted: countedInto(metrics) })
 */
export function countedInto(metrics: PetStoreMetrics): (request: CountedRequest) => void {
  return ({ key, principal, operationId, refusal }) => {
    if (refusal) metrics.rateLimited?.({ plan: key?.plan ?? principal?.plan ?? 'none', code: refusal.code });
    else if (key && operationId && operations[operationId].deprecation) {
      metrics.deprecatedCall?.({ operationId, keyId: key.id, plan: key.plan });
    }
  };
}

/**
 * The delivery worker's attempts as metrics (`webhookAttempt`), then to `onAttempt` (the host's log line) as before.
 * @example openWebhooks(db, schema, clock, { ...options, onAttempt: attemptsInto(metrics, options.onAttempt) })
 */
export function attemptsInto(
  metrics: PetStoreMetrics | undefined,
  onAttempt: ((attempt: AttemptOutcome) => void) | undefined,
): ((attempt: AttemptOutcome) => void) | undefined {
  if (!metrics?.webhookAttempt) return onAttempt;
  return (attempt) => {
    metrics.webhookAttempt!({ outcome: attempt.outcome, ...(attempt.refused ? { refused: attempt.refused } : {}) });
    onAttempt?.(attempt);
  };
}
