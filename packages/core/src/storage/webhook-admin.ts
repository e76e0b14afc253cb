import { sql, type Kysely } from 'kysely';
import type { WebhookDelivery, WebhookDeliveryStatus, WebhookEventType } from '../domain/webhook-schemas.js';
import type { Database } from './database.js';
import { schemaName, tableIn, type StoreSchema } from './schema.js';
import { createWebhookRepository } from './webhook-repository.js';

/** Whose an endpoint is: the first key of a rotation (`keys list`'s id; its successors own it too), or a principal. */
export type WebhookOwner = { keyId: number } | { principalId: string };

/** An endpoint as the operator sees it: any owner's, never its secret. */
export interface OperatorWebhook {
  id: number;
  owner: WebhookOwner;
  url: string;
  events: WebhookEventType[];
  createdAt: Date;
  /** Since when its deliveries fail without a success between; null while it succeeds. */
  failingSince: Date | null;
  /** When it was disabled after failing for 5 days straight; null while enabled. */
  disabledAt: Date | null;
  /** Its deliveries still to send (due now, or waiting for a retry). */
  pending: number;
}

/** A delivery as the operator sees it: the deliveries log's entry, its times as dates. */
export interface OperatorDelivery {
  id: number;
  eventId: string;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  error: string | null;
}

/**
 * The operator's view of the webhooks (`petstore webhooks …`): every owner's endpoints, their deliveries logs and
 * redelivery, with no owner check and no secret. Operations never get it: callers see only their own endpoints.
 */
export interface WebhookAdmin {
  /** Every endpoint, in ascending id order. */
  list(): Promise<OperatorWebhook[]>;
  /** The deliveries of an endpoint, newest first (at most `limit`, default 20); undefined when there is no such endpoint. */
  deliveries(webhookId: number, options?: { limit?: number | undefined; status?: WebhookDeliveryStatus | undefined }): Promise<OperatorDelivery[] | undefined>;
  /** A new delivery of the event of one of the endpoint's deliveries, due at once; undefined when there is none. */
  redeliver(webhookId: number, deliveryId: number): Promise<OperatorDelivery | undefined>;
}

const ownerOf = (owner: string): WebhookOwner => (owner.startsWith('k:') ? { keyId: Number(owner.slice(2)) } : { principalId: owner.slice(2) });
const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

const toOperator = (delivery: WebhookDelivery): OperatorDelivery => ({
  ...delivery,
  createdAt: new Date(delivery.createdAt),
  lastAttemptAt: dateOrNull(delivery.lastAttemptAt),
  nextAttemptAt: dateOrNull(delivery.nextAttemptAt),
});

/**
 * The operator's view of the webhook tables of a store's database, in `schema`.
 * @example const webhooks = createWebhookAdmin(service.database.db, { schema: service.schema }); await webhooks.list()
 */
export function createWebhookAdmin(host: Kysely<Database>, options: StoreSchema = {}): WebhookAdmin {
  const schema = schemaName(options.schema);
  // The host's plugins left out, as the store does: a CamelCasePlugin would rename the columns read here.
  const db = host.withoutPlugins();
  const repository = createWebhookRepository(db, schema);
  const endpoints = tableIn(schema, 'webhook_endpoints');
  const deliveries = tableIn(schema, 'webhook_deliveries');
  const exists = async (id: number) =>
    (await sql`select 1 from ${endpoints} where id = ${id}`.execute(db)).rows.length > 0;
  return {
    async list() {
      const { rows } = await sql<{
        id: number | string;
        owner: string;
        url: string;
        events: string[];
        created_at: Date | string;
        failing_since: Date | string | null;
        disabled_at: Date | string | null;
        pending: number | string;
      }>`
        select e.id, e.owner, e.url, e.events, e.created_at, e.failing_since, e.disabled_at, coalesce(p.pending, 0) as pending
        from ${endpoints} e
        left join (select endpoint_id, count(*) as pending from ${deliveries} where status = 'pending' group by endpoint_id) p
          on p.endpoint_id = e.id
        order by e.id`.execute(db);
      return rows.map((row) => ({
        id: Number(row.id),
        owner: ownerOf(row.owner),
        url: row.url,
        events: row.events as WebhookEventType[],
        createdAt: new Date(row.created_at),
        failingSince: dateOrNull(row.failing_since),
        disabledAt: dateOrNull(row.disabled_at),
        pending: Number(row.pending),
      }));
    },
    async deliveries(webhookId, { limit = 20, status } = {}) {
      if (!(await exists(webhookId))) return undefined;
      const log = await repository.deliveries({ endpointId: webhookId, status, beforeId: Number.MAX_SAFE_INTEGER, limit, since: new Date(0) });
      return log.map(toOperator);
    },
    async redeliver(webhookId, deliveryId) {
      const { rows } = await sql<{ id: number | string }>`
        insert into ${deliveries} (endpoint_id, event_id)
        select endpoint_id, event_id from ${deliveries} where id = ${deliveryId} and endpoint_id = ${webhookId}
        returning id`.execute(db);
      if (!rows[0]) return undefined;
      const id = Number(rows[0].id);
      const [again] = await repository.deliveries({ endpointId: webhookId, beforeId: id + 1, limit: 1, since: new Date(0) });
      return again && toOperator(again);
    },
  };
}
