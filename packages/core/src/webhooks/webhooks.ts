import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { createWebhookRepository, type WebhookRepository } from '../storage/webhook-repository.js';
import { type AttemptOutcome, type DeliveryTuning, startDeliveryWorker } from './delivery-worker.js';
import { createSender } from './send.js';
import type { ResolveHost, TargetRule } from './targets.js';

/** How a store delivers webhooks (DECISIONS "Events"); every duration has its default. */
export interface WebhookOptions extends DeliveryTuning {
  /**
   * Allow `http://` targets and private, loopback and link-local addresses, for development and tests
   * (`PETSTORE_WEBHOOKS_ALLOW_PRIVATE=true`). Default false: only `https://` to public addresses.
   */
  allowPrivate?: boolean | undefined;
  /** How target names are resolved (default: the system's resolver). */
  resolve?: ResolveHost | undefined;
  /** Told of each attempt (a log line, a metric). */
  onAttempt?: ((attempt: AttemptOutcome) => void) | undefined;
  /** Told when the worker could not reach the database (it tries again at its next poll). */
  onError?: ((error: unknown) => void) | undefined;
  /** `false`: this instance sends no deliveries (another does); endpoints and events are kept as ever. */
  deliver?: boolean | undefined;
}

/** A store's webhooks: the endpoints' table, the target rule, and this instance's delivery worker. */
export interface Webhooks {
  readonly repository: WebhookRepository;
  readonly targets: TargetRule;
  /** A change was made through this instance: its events are due now. */
  nudge(): void;
  close(): Promise<void>;
}

/**
 * Opens a store's webhooks on its database and starts this instance's delivery worker (unless `deliver: false`).
 * @example const webhooks = openWebhooks(db, schema, clock, { allowPrivate: true }); webhooks.nudge()
 */
export function openWebhooks(db: Kysely<Database>, schema: string | undefined, clock: Clock, options: WebhookOptions = {}): Webhooks {
  const repository = createWebhookRepository(db, schema);
  const targets: TargetRule = { allowPrivate: options.allowPrivate ?? false, resolve: options.resolve };
  if (options.deliver === false) return { repository, targets, nudge() {}, close: async () => {} };
  const sender = createSender(targets, options.concurrency ?? 16);
  const worker = startDeliveryWorker({ ...options, repository, send: sender.send, clock });
  return {
    repository,
    targets,
    nudge: worker.nudge,
    async close() {
      await worker.close();
      sender.close();
    },
  };
}
