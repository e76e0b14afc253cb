import type { ColumnType, Generated } from 'kysely';

/** int8 columns: `pg` reads them as strings, PGlite as numbers; rows are normalised with `Number()` when mapped. */
type Int8 = ColumnType<number | string, number, number>;
/** An identity column: assigned by the database, never written. */
type Identity = ColumnType<number | string, never, never>;

export interface PetsTable {
  id: Identity;
  name: string;
  category_id: Int8;
  status: string;
  /** Raised by every change of the row, in the statement that makes it; 1 for a new row. */
  version: ColumnType<number | string, never, number>;
  /** Whether an order of the pet is `placed`: its status then changes only through the order. */
  on_order: ColumnType<boolean, never, boolean>;
  created_at: Generated<Date>;
}

export interface OrdersTable {
  id: Identity;
  pet_id: Int8;
  /** `k:ID` (the first key of a rotation) or `p:ID` (a host's principal). */
  owner: string;
  status: string;
  placed_at: Date;
  closed_at: Date | null;
}

export interface ApiKeysTable {
  id: Identity;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  label: string | null;
  plan: string;
  per_minute: number | null;
  per_day: number | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** When the key stops working; null: never. */
  expires_at: Date | null;
  /** The key that replaced this one in a rotation. */
  replaced_by: Int8 | null;
  /** The key whose quota and ban this one shares (the first of its rotation); null: its own. */
  quota_key_id: Int8 | null;
}

export interface IdempotencyKeysTable {
  api_key_id: Int8;
  /** The `Idempotency-Key` as sent. */
  key: string;
  /** Hex SHA-256 of the operation and its validated input, keys sorted. */
  request_hash: string;
  /** Who holds the row; only that request completes or releases it. */
  claim: string;
  /** From the injected clock; the row answers for 24 hours from then. */
  created_at: Date;
  /** Null while the first request is in progress. */
  response_status: number | null;
  /** The first response's body; written as JSON text, read back parsed. */
  response_body: ColumnType<unknown, string | null, string | null>;
  /** The first response's `ETag`, when it had one. */
  response_etag: string | null;
}

export interface DeprecatedCallsTable {
  api_key_id: Int8;
  operation_id: string;
  calls: Int8;
  last_called_at: Date;
}

export interface DomainsTable {
  /** Lower case, no trailing dot. */
  name: string;
  /** `pending`, `verified`, `failed`, or `removed` (kept so that domains stay managed). */
  state: string;
  added_at: Date;
  checked_at: Date | null;
  /** Why the last check failed, or what it found; null before any check. */
  reason: string | null;
  /** Checks made so far, for the backoff of automatic re-checks. */
  checks: number;
  /** When a pending domain is checked again by itself; null when none is due. */
  next_check_at: Date | null;
  redirect_to: string | null;
  redirect_status: number | null;
}

export interface UsageDaysTable {
  /** The UTC day, `YYYY-MM-DD`. */
  day: ColumnType<string, string, string>;
  /** `k:` and an API key's id, or `p:` and a host principal's id. */
  subject: string;
  plan: string;
  /** The operation called, or `unmatched` for a request that named none (an unknown path, another method). */
  operation_id: string;
  served: Int8;
  rate_limited: Int8;
  banned: Int8;
  client_errors: Int8;
  server_errors: Int8;
}

export interface WebhookEndpointsTable {
  id: Identity;
  /** Whose endpoint it is, as orders are owned: `k:ID` or `p:ID`. */
  owner: string;
  /** Which of the owner's numbered places it takes (1 to 10): one endpoint each, so none goes past the limit. */
  slot: number;
  url: string;
  /** The event types it asked for. */
  events: string[];
  /** `whsec_` and the base64 of 32 random bytes; signs every delivery. */
  secret: string;
  /** The secret a rotation replaced, signing beside the new one until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
  /** Since when every delivery has failed; null after a success. */
  failing_since: Date | null;
  /** When 5 days of failures disabled it; it then takes no events. */
  disabled_at: Date | null;
}

export interface WebhookEventsTable {
  /** `evt_` and 32 hex digits: the `webhook-id` of each of its deliveries. */
  id: string;
  type: string;
  /** The order's owner for `order.*` events; null for the catalogue's. */
  owner: string | null;
  /** The changed row as it was after the change (before it, for a delete). */
  data: unknown;
  created_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: Identity;
  endpoint_id: Int8;
  event_id: string;
  /** `pending` until a 2xx (`delivered`) or the last attempt of the schedule (`failed`). */
  status: Generated<string>;
  attempts: Generated<number>;
  /** When it is due; null: at once. */
  next_attempt_at: Date | null;
  /** Until when an instance holds it for a send. */
  lease_until: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  error: string | null;
  created_at: Generated<Date>;
}

/**
 * The tables of the service, as kysely sees them.
 * @example const db = new Kysely<Database>({ dialect })
 */
export interface Database {
  pets: PetsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  deprecated_calls: DeprecatedCallsTable;
  domains: DomainsTable;
  usage_days: UsageDaysTable;
  orders: OrdersTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
