import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { createWebhookRepository, type WebhookRepository } from '../storage/webhook-repository.js';
import { type AttemptOutcome, type DeliveryTuning, type DeliveryWorkerOptions, startDeliveryWorker } from './delivery-worker.js';
import type { TargetRule } from './targets.js';
import type { WebhookTransport } from './transport.js';

/** How a store delivers webhooks (DECISIONS "Events"); every duration has its default. */
export interface WebhookOptions extends DeliveryTuning, Pick<DeliveryWorkerOptions, 'soleWorker'> {
  /**
   * Allow `http://` targets and private, loopback and link-local addresses, for development and tests
   * (`PETSTORE_WEBHOOKS_ALLOW_PRIVATE=true`). Default false: only `https://` to public addresses. The transport must
   * have been made with the same rule.
   */
  allowPrivate?: boolean | undefined;
  /**
   * How targets are resolved and deliveries sent (`createWebhookTransport` of `@petstore/drivers`; `openPetStore`
   * gives one). Without it this instance sends nothing (another instance on the database does) and registers only
   * endpoints whose host is a literal address.
   */
  transport?: WebhookTransport | undefined;
  /** Told of each attempt (a log line, a metric). */
  onAttempt?: ((attempt: AttemptOutcome) => void) | undefined;
  /** Told when the worker could not reach the database (it tries again at its next poll). */
  onError?: ((error: unknown) => void) | undefined;
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
 * Opens a store's webhooks on its database and, given a transport, starts this instance's delivery worker.
 * @example const webhooks = openWebhooks(db, schema, clock, { transport }); webhooks.nudge()
 */
export function openWebhooks(db: Kysely<Database>, schema: string | undefined, clock: Clock, options: WebhookOptions = {}): Webhooks {
  const stored = createWebhookRepository(db, schema);
  const { transport } = options;
  const targets: TargetRule = { allowPrivate: options.allowPrivate ?? false, resolve: transport?.resolve };
  if (!transport) return { repository: stored, targets, nudge() {}, close: async () => {} };
  const worker = startDeliveryWorker({ ...options, repository: stored, send: transport.send, clock });
  // The worker skips its reads while no endpoint exists: one registered here is known to it at once.
  const repository: WebhookRepository = {
    ...stored,
    async create(...args) {
      const created = await stored.create(...args);
      if (created) worker.endpointAdded();
      return created;
    },
  };
  return {
    repository,
    targets,
    nudge: worker.nudge,
    async close() {
      await worker.close();
      transport.close();
    },
  };
}
