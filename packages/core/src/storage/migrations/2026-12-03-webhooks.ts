import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn, tableText } from '../schema.js';

/** One kind of change the triggers below report: the event rows a statement's transition tables make. */
export interface EventSource {
  /** The trigger's name, its function's and the statement it follows. */
  readonly name: string;
  readonly table: 'pets' | 'orders';
  readonly on: 'insert' | 'update' | 'delete';
  /** `select type, owner, data from …` over `new_rows` and `old_rows`: one row per event. */
  readonly events: string;
}

export const sources: readonly EventSource[] = [
  { name: 'pet_created', table: 'pets', on: 'insert', events: `select 'pet.created', null::text, to_jsonb(n) from new_rows n` },
  {
    name: 'pet_updated',
    table: 'pets',
    on: 'update',
    events: `select 'pet.updated', null::text, to_jsonb(n) from new_rows n join old_rows o on o.id = n.id where n.version <> o.version`,
  },
  { name: 'pet_deleted', table: 'pets', on: 'delete', events: `select 'pet.deleted', null::text, to_jsonb(o) from old_rows o` },
  { name: 'order_placed', table: 'orders', on: 'insert', events: `select 'order.placed', n.owner, to_jsonb(n) from new_rows n` },
  {
    name: 'order_closed',
    table: 'orders',
    on: 'update',
    events: `select 'order.' || n.status, n.owner, to_jsonb(n) from new_rows n join old_rows o on o.id = n.id where n.status <> o.status`,
  },
];

/**
 * Webhooks (DECISIONS "Events"): the endpoints, the events and one delivery per event and endpoint. Every change of
 * the pets and orders tables records its events and their deliveries in the statement's own transaction, by
 * statement-level triggers over its transition tables: an acknowledged change always has its event, whichever
 * statement or release made it, and nothing is recorded while no endpoint asks for that event. Only adds.
 */
export const webhooks = (schema: string | undefined): Migration => ({
  async up(db) {
    const endpoints = tableIn(schema, 'webhook_endpoints');
    const events = tableIn(schema, 'webhook_events');
    const deliveries = tableIn(schema, 'webhook_deliveries');
    await sql`
      create table ${endpoints} (
        id bigint generated always as identity (maxvalue 9007199254740991) primary key,
        owner text not null,
        slot smallint not null,
        url text not null,
        events text[] not null,
        secret text not null,
        previous_secret text,
        previous_secret_until timestamptz,
        created_at timestamptz not null,
        failing_since timestamptz,
        disabled_at timestamptz
      )`.execute(db);
    // Each of an owner's endpoints takes one of its numbered slots: concurrent registrations cannot pass the limit.
    await sql`create unique index webhook_endpoints_owner_slot_idx on ${endpoints} (owner, slot)`.execute(db);
    await sql`
      create table ${events} (
        id text primary key,
        type text not null,
        owner text,
        data jsonb not null,
        created_at timestamptz not null default now()
      )`.execute(db);
    await sql`create index webhook_events_created_at_idx on ${events} (created_at)`.execute(db);
    await sql`
      create table ${deliveries} (
        id bigint generated always as identity (maxvalue 9007199254740991) primary key,
        endpoint_id bigint not null references ${endpoints} (id) on delete cascade,
        event_id text not null references ${events} (id) on delete cascade,
        status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
        attempts integer not null default 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        last_attempt_at timestamptz,
        response_status integer,
        error text,
        created_at timestamptz not null default now()
      )`.execute(db);
    await sql`create index webhook_deliveries_endpoint_idx on ${deliveries} (endpoint_id, id)`.execute(db);
    await sql`create index webhook_deliveries_event_idx on ${deliveries} (event_id)`.execute(db);
    await sql`create index webhook_deliveries_due_idx on ${deliveries} (next_attempt_at nulls first, id) where status = 'pending'`.execute(db);
    for (const source of sources) {
      await sql.raw(eventFunction(schema, source, { skipWithoutEndpoints: false })).execute(db);
      const transition = source.on === 'insert' ? 'new table as new_rows' : source.on === 'delete' ? 'old table as old_rows' : 'new table as new_rows old table as old_rows';
      await sql
        .raw(`
          create trigger petstore_${source.name}_events after ${source.on} on ${tableText(schema, source.table)}
          referencing ${transition} for each statement execute function ${tableText(schema, `petstore_${source.name}_events`)}()`)
        .execute(db);
    }
  },
});

/**
 * The trigger function that records one kind of change's events and deliveries. With `skipWithoutEndpoints`
 * (migration 052) it returns at once while no enabled endpoint exists, before any changed row is looked at.
 */
export function eventFunction(schema: string | undefined, source: EventSource, { skipWithoutEndpoints }: { skipWithoutEndpoints: boolean }): string {
  const endpointsText = tableText(schema, 'webhook_endpoints');
  // An endpoint takes an event it asked for: a catalogue event (no owner) whoever owns it, an order's only its owner's.
  const asks = (event: string) =>
    `e.disabled_at is null and ${event}.type = any(e.events) and (${event}.owner is null or e.owner = ${event}.owner)`;
  const skip = skipWithoutEndpoints ? `if not exists (select 1 from ${endpointsText} where disabled_at is null) then return null; end if;` : '';
  return `
          create or replace function ${tableText(schema, `petstore_${source.name}_events`)}() returns trigger language plpgsql as $body$
          begin
            ${skip}
            with change (type, owner, data) as (${source.events}),
            recorded as (
              insert into ${tableText(schema, 'webhook_events')} (id, type, owner, data)
              select 'evt_' || replace(gen_random_uuid()::text, '-', ''), c.type, c.owner, c.data from change c
              where exists (select 1 from ${endpointsText} e where ${asks('c')})
              returning id, type, owner
            )
            insert into ${tableText(schema, 'webhook_deliveries')} (endpoint_id, event_id)
            select e.id, r.id from recorded r join ${endpointsText} e on ${asks('r')};
            return null;
          end
          $body$`;
}
