import { sql, type Kysely } from 'kysely';
import type { Order } from '../domain/order-schemas.js';
import type { Pet } from '../domain/pet-schemas.js';
import type { Webhook, WebhookDelivery, WebhookDeliveryStatus, WebhookEventType } from '../domain/webhook-schemas.js';
import type { Database } from './database.js';
import { groupedStatements } from './grouped-statements.js';
import { tableIn } from './schema.js';

/** An endpoint with its signing secrets. */
export interface StoredWebhook {
  webhook: Webhook;
  secret: string;
}

/** A delivery an instance holds for one send: where it goes, how it is signed, what it says. */
export interface DueDelivery {
  id: number;
  /** This attempt's number, from 1. */
  attempt: number;
  endpointId: number;
  url: string;
  /** The secrets that sign it: the endpoint's, and during a rotation's grace the one it replaced. */
  secrets: string[];
  eventId: string;
  type: WebhookEventType;
  /** When the change was made. */
  timestamp: Date;
  /** The changed row, as the trigger recorded it. */
  row: Record<string, unknown>;
}

/** How an attempt ended. */
export type Attempt =
  | { ok: true; status: number }
  | { ok: false; status?: number | undefined; error: string; retryAt?: Date | undefined };

/** Reads and writes webhook endpoints and their deliveries; the triggers of the pets and orders tables add events. */
export interface WebhookRepository {
  /** Registers an endpoint of `owner`, unless it has `max` already, whatever the race. */
  create(owner: string, fields: { url: string; events: WebhookEventType[]; secret: string }, now: Date, max: number): Promise<StoredWebhook | undefined>;
  list(owner: string): Promise<Webhook[]>;
  find(id: number, owner: string): Promise<Webhook | undefined>;
  delete(id: number, owner: string): Promise<boolean>;
  /** Replaces the secret; the one it replaces keeps signing until `previousUntil`. */
  rotate(id: number, owner: string, secret: string, previousUntil: Date): Promise<StoredWebhook | undefined>;
  /** Up to `limit` deliveries of an endpoint with an id below `beforeId`, newest first, created since `since`. */
  deliveries(query: { endpointId: number; status?: WebhookDeliveryStatus | undefined; beforeId: number; limit: number; since: Date }): Promise<WebhookDelivery[]>;
  /** A new delivery of the event of one of the endpoint's deliveries, due at once. Undefined when there is none. */
  redeliver(endpointId: number, deliveryId: number, owner: string): Promise<WebhookDelivery | undefined>;
  /**
   * Takes up to `limit` due deliveries for one send each, held until `leaseUntil`: each by one instance at a time
   * (`for update skip locked` in one statement, which a transaction pooler keeps whole), a held one again only once
   * its lease is over (its instance died).
   */
  claim(limit: number, now: Date, leaseUntil: Date): Promise<DueDelivery[]>;
  /**
   * Records an attempt: delivered, due again at `retryAt`, or failed. A failure marks the endpoint failing since
   * now unless it was already, and disables it (failing its pending deliveries) once it has failed since
   * `disableIfFailingSince`; answers whether it did. A failure counts only while its attempt is the delivery's
   * latest and it is pending: one whose lease ran out (the delivery taken again meanwhile, or delivered) changes
   * nothing, so it cannot make the delivery due again while another send of it is in flight. A 2xx always counts.
   */
  settle(delivery: DueDelivery, attempt: Attempt, now: Date, disableIfFailingSince: Date): Promise<{ disabled: boolean }>;
  /** Hands back a held delivery unattempted (the instance is stopping). */
  release(delivery: DueDelivery): Promise<void>;
  /**
   * Ends every lease at once, keeping each attempt counted (its send may have gone out): for a process that alone
   * delivers from this database, starting after one that died holding them. Answers how many it ended.
   */
  endLeases(): Promise<number>;
  /** Deletes the events (and their deliveries) recorded before `before`. */
  prune(before: Date): Promise<number>;
  /** How many deliveries are pending, and since when the oldest. */
  backlog(): Promise<{ pending: number; oldest: Date | undefined }>;
  /** Whether any endpoint is registered (by any owner, on any instance): without one nothing is ever due. */
  anyEndpoint(): Promise<boolean>;
}

/** A 2xx to record. */
interface Delivered {
  id: number;
  status: number;
  at: Date;
}

interface EndpointRow {
  id: number | string;
  url: string;
  events: string[];
  secret: string;
  created_at: Date | string;
  disabled_at: Date | string | null;
}

interface DeliveryRow {
  id: number | string;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  created_at: Date | string;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
  response_status: number | null;
  error: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

const toWebhook = (row: EndpointRow): Webhook => ({
  id: Number(row.id),
  url: row.url,
  events: row.events as WebhookEventType[],
  createdAt: iso(row.created_at),
  disabledAt: isoOrNull(row.disabled_at),
});

const toStored = (row: EndpointRow): StoredWebhook => ({ webhook: toWebhook(row), secret: row.secret });

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: Number(row.id),
  eventId: row.event_id,
  eventType: row.type as WebhookEventType,
  status: row.status as WebhookDeliveryStatus,
  attempts: row.attempts,
  createdAt: iso(row.created_at),
  lastAttemptAt: isoOrNull(row.last_attempt_at),
  nextAttemptAt: row.status === 'pending' ? isoOrNull(row.next_attempt_at) : null,
  responseStatus: row.response_status,
  error: row.error,
});

/** The Pet of a `pets` row, the Order of an `orders` row, as the triggers recorded them (`to_jsonb`). */
export function eventData(type: WebhookEventType, row: Record<string, unknown>): Pet | Order {
  if (type.startsWith('pet.')) {
    return { id: Number(row.id), name: String(row.name), categoryId: Number(row.category_id), status: row.status as Pet['status'] };
  }
  return { id: Number(row.id), petId: Number(row.pet_id), status: row.status as Order['status'], placedAt: iso(row.placed_at as string) };
}

const ERROR_LENGTH = 200;

/**
 * The webhook tables through kysely, each change one statement (or one transaction holding the owner's lock).
 * @example const webhooks = createWebhookRepository(db, schema); await webhooks.list('k:1')
 */
export function createWebhookRepository(db: Kysely<Database>, schema?: string): WebhookRepository {
  const endpoints = tableIn(schema, 'webhook_endpoints');
  const events = tableIn(schema, 'webhook_events');
  const deliveries = tableIn(schema, 'webhook_deliveries');
  const endpointColumns = sql`id, url, events, secret, created_at, disabled_at`;
  const deliveryColumns = sql`d.id, d.event_id, v.type, d.status, d.attempts, d.created_at, d.last_attempt_at, d.next_attempt_at, d.response_status, d.error`;
  // The common outcome, a 2xx, recorded for the deliveries of a turn (or of one statement's time) in one statement:
  // an instance sending many deliveries makes one write per group, not one per delivery. Their endpoints are no
  // longer failing.
  const deliveredMany = async (done: readonly Delivered[]) => {
    await sql`
      with attempted as (
        update ${deliveries} d set status = 'delivered', lease_until = null, last_attempt_at = x.at, next_attempt_at = null,
          response_status = x.status, error = null
        from unnest(${done.map((x) => x.id)}::bigint[], ${done.map((x) => x.status)}::int[], ${done.map((x) => x.at.toISOString())}::timestamptz[])
          as x(id, status, at)
        where d.id = x.id
        returning d.endpoint_id
      )
      update ${endpoints} e set failing_since = null
      where e.id in (select endpoint_id from attempted) and e.failing_since is not null`.execute(db);
    return done.map(() => undefined);
  };
  const settleDelivered = groupedStatements<Delivered, undefined>({
    many: deliveredMany,
    one: async (delivered) => (await deliveredMany([delivered]))[0],
    keyOf: (delivered) => delivered.id,
  });
  return {
    async create(owner, { url, events: types, secret }, now, max) {
      // The lowest free slot of the owner's `max`: a registration racing for the same one waits for it and takes
      // nothing (the unique index), then looks again. Each lost race means another took a slot, so `max` tries end.
      for (let tries = 0; tries <= max; tries++) {
        const { rows } = await sql<EndpointRow>`
          with free as (
            select s from generate_series(1, ${max}::int) s
            where s not in (select slot from ${endpoints} where owner = ${owner})
            order by s limit 1
          )
          insert into ${endpoints} (owner, slot, url, events, secret, created_at)
          select ${owner}, s, ${url}, ${sql.val(types)}::text[], ${secret}, ${now} from free
          on conflict (owner, slot) do nothing
          returning ${endpointColumns}`.execute(db);
        if (rows[0]) return toStored(rows[0]);
        const { rows: taken } = await sql<{ count: number | string }>`select count(*) as count from ${endpoints} where owner = ${owner}`.execute(db);
        if (Number(taken[0]!.count) >= max) return undefined;
      }
      return undefined;
    },
    async list(owner) {
      const { rows } = await sql<EndpointRow>`select ${endpointColumns} from ${endpoints} where owner = ${owner} order by id`.execute(db);
      return rows.map(toWebhook);
    },
    async find(id, owner) {
      const { rows } = await sql<EndpointRow>`select ${endpointColumns} from ${endpoints} where id = ${id} and owner = ${owner}`.execute(db);
      return rows[0] && toWebhook(rows[0]);
    },
    async delete(id, owner) {
      const { rows } = await sql`delete from ${endpoints} where id = ${id} and owner = ${owner} returning id`.execute(db);
      return rows.length > 0;
    },
    async rotate(id, owner, secret, previousUntil) {
      const { rows } = await sql<EndpointRow>`
        update ${endpoints} set previous_secret = secret, previous_secret_until = ${previousUntil}, secret = ${secret}
        where id = ${id} and owner = ${owner}
        returning ${endpointColumns}`.execute(db);
      return rows[0] && toStored(rows[0]);
    },
    async deliveries({ endpointId, status, beforeId, limit, since }) {
      const { rows } = await sql<DeliveryRow>`
        select ${deliveryColumns} from ${deliveries} d join ${events} v on v.id = d.event_id
        where d.endpoint_id = ${endpointId} and d.id < ${beforeId} and d.created_at >= ${since}
          ${status === undefined ? sql`` : sql`and d.status = ${status}`}
        order by d.id desc limit ${limit}`.execute(db);
      return rows.map(toDelivery);
    },
    async redeliver(endpointId, deliveryId, owner) {
      const { rows } = await sql<DeliveryRow>`
        with again as (
          insert into ${deliveries} (endpoint_id, event_id)
          select d.endpoint_id, d.event_id from ${deliveries} d join ${endpoints} e on e.id = d.endpoint_id
          where d.id = ${deliveryId} and d.endpoint_id = ${endpointId} and e.owner = ${owner}
          returning *
        )
        select ${deliveryColumns} from again d join ${events} v on v.id = d.event_id`.execute(db);
      return rows[0] && toDelivery(rows[0]);
    },
    async claim(limit, now, leaseUntil) {
      const { rows } = await sql<{
        id: number | string;
        attempts: number;
        endpoint_id: number | string;
        url: string;
        secret: string;
        previous_secret: string | null;
        previous_secret_until: Date | string | null;
        event_id: string;
        type: string;
        created_at: Date | string;
        data: Record<string, unknown> | string;
      }>`
        with due as (
          select id from ${deliveries}
          where status = 'pending' and (next_attempt_at is null or next_attempt_at <= ${now})
            and (lease_until is null or lease_until <= ${now})
          order by next_attempt_at nulls first, id
          limit ${limit}
          for update skip locked
        )
        update ${deliveries} d set attempts = d.attempts + 1, lease_until = ${leaseUntil}
        from due, ${events} v, ${endpoints} e
        where d.id = due.id and v.id = d.event_id and e.id = d.endpoint_id
        returning d.id, d.attempts, d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_until,
          v.id as event_id, v.type, v.created_at, v.data`.execute(db);
      return rows.map((row) => ({
        id: Number(row.id),
        attempt: row.attempts,
        endpointId: Number(row.endpoint_id),
        url: row.url,
        secrets:
          row.previous_secret !== null && row.previous_secret_until !== null && new Date(row.previous_secret_until) > now
            ? [row.secret, row.previous_secret]
            : [row.secret],
        eventId: row.event_id,
        type: row.type as WebhookEventType,
        timestamp: new Date(row.created_at),
        row: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
      }));
    },
    async settle(delivery, attempt, now, disableIfFailingSince) {
      if (attempt.ok) {
        await settleDelivered({ id: delivery.id, status: attempt.status, at: now });
        return { disabled: false };
      }
      const error = attempt.ok ? null : attempt.error.slice(0, ERROR_LENGTH);
      const status = attempt.ok ? 'delivered' : attempt.retryAt ? 'pending' : 'failed';
      const { rows } = await sql<{ disabled: boolean | null }>`
        with attempted as (
          update ${deliveries} set status = ${status}, lease_until = null, last_attempt_at = ${now},
            next_attempt_at = ${attempt.ok ? null : (attempt.retryAt ?? null)}, response_status = ${attempt.status ?? null}, error = ${error}
          where id = ${delivery.id} and attempts = ${delivery.attempt} and status = 'pending'
          returning endpoint_id
        ), endpoint as (
          update ${endpoints} e set
            failing_since = ${attempt.ok ? sql`null` : sql`coalesce(e.failing_since, ${now})`},
            disabled_at = ${attempt.ok ? sql`e.disabled_at` : sql`case when e.disabled_at is null and e.failing_since <= ${disableIfFailingSince} then ${now} else e.disabled_at end`}
          where e.id = (select endpoint_id from attempted) and ${attempt.ok ? sql`e.failing_since is not null` : sql`true`}
          returning e.id, e.disabled_at = ${now} as disabled
        ), failed as (
          update ${deliveries} set status = 'failed', next_attempt_at = null, error = 'endpoint disabled after failing for 5 days'
          where endpoint_id = (select id from endpoint where disabled) and status = 'pending' and id <> ${delivery.id} and lease_until is null
        )
        select (select disabled from endpoint) as disabled`.execute(db);
      return { disabled: rows[0]?.disabled === true };
    },
    async release(delivery) {
      await sql`update ${deliveries} set lease_until = null, attempts = attempts - 1 where id = ${delivery.id} and status = 'pending'`.execute(db);
    },
    async endLeases() {
      const { rows } = await sql`update ${deliveries} set lease_until = null where status = 'pending' and lease_until is not null returning id`.execute(db);
      return rows.length;
    },
    async prune(before) {
      const { rows } = await sql`delete from ${events} where created_at < ${before} returning id`.execute(db);
      return rows.length;
    },
    async anyEndpoint() {
      const { rows } = await sql<{ any: boolean }>`select exists (select 1 from ${endpoints}) as any`.execute(db);
      return rows[0]?.any === true;
    },
    async backlog() {
      const { rows } = await sql<{ pending: number | string; oldest: Date | string | null }>`
        select count(*) as pending, min(created_at) as oldest from ${deliveries} where status = 'pending'`.execute(db);
      const row = rows[0]!;
      return { pending: Number(row.pending), oldest: row.oldest === null ? undefined : new Date(row.oldest) };
    },
  };
}
