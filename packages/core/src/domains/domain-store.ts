import type { Kysely, Selectable } from 'kysely';
import { systemClock, type Clock } from '../clock.js';
import type { Database, DomainsTable } from '../storage/database.js';
import type { DnsCheck } from './dns-verdict.js';
import { normalizeDomainName } from './domain-name.js';
import { nextRecheck } from './recheck-backoff.js';
import { schemaName, storeDatabase, type StoreSchema } from '../storage/schema.js';

/** Where a domain stands: added and not yet pointing here, served, or given up on after 48 hours. */
export type DomainState = 'pending' | 'verified' | 'failed';

/** A redirect from one domain to another host; path and query are kept. */
export interface DomainRedirect {
  to: string;
  status: 301 | 308;
}

/** A custom domain as stored. */
export interface DomainRecord {
  name: string;
  state: DomainState;
  addedAt: Date;
  /** The last DNS check; null before the first. */
  checkedAt: Date | null;
  /** What the last check found, or why it failed. */
  reason: string | null;
  /** When a pending domain is checked again by itself; null when none is due. */
  nextCheckAt: Date | null;
  redirect: DomainRedirect | null;
}

/** What the edge serves from: every managed domain's name, state and redirect. */
export interface DomainHostsSnapshot {
  /**
   * Whether domains are managed: any was ever added (a removed domain is kept as removed, so removing the last one
   * still refuses it). Then a host that is not the service's own gets 421.
   */
  managed: boolean;
  /** Verified domains, each with its redirect if it has one. */
  verified: ReadonlyMap<string, DomainRedirect | undefined>;
}

/** Adds, verifies, lists, redirects and removes custom domains. */
export interface DomainStore {
  /** Records a domain as `pending`; `invalid` when the name is not a domain name. */
  add(name: string): Promise<DomainRecord | 'exists' | 'invalid'>;
  /** Checks the domain in DNS now and records the outcome. */
  verify(name: string): Promise<DomainRecord | 'not_found'>;
  list(): Promise<DomainRecord[]>;
  get(name: string): Promise<DomainRecord | undefined>;
  /** Removes a domain (kept as `removed`, so domains stay managed); false when there is none. */
  remove(name: string): Promise<boolean>;
  /** Sets (or with `null` clears) the redirect of a domain. */
  redirect(name: string, redirect: DomainRedirect | null): Promise<DomainRecord | 'not_found' | 'invalid'>;
  /** Checks every pending domain whose re-check is due (once across a fleet); answers how many were checked. */
  recheckDue(): Promise<number>;
  /** The domains as the edge serves them. */
  snapshot(): Promise<DomainHostsSnapshot>;
}

/** What a domain store works with. */
export interface DomainStoreOptions extends StoreSchema {
  /** The DNS check; without it `verify` and re-checks throw (PETSTORE_PLATFORM_HOST is unset). */
  check?: DnsCheck | undefined;
  clock?: Clock;
}

/** The state of a removed domain's row: never served, never listed, added again as new. */
const REMOVED = 'removed';

/** How long a claimed re-check holds off the other instances of a fleet. */
const CLAIM_MS = 5 * 60_000;

function toRecord(row: Selectable<DomainsTable>): DomainRecord {
  return {
    name: row.name,
    state: row.state as DomainState,
    addedAt: new Date(row.added_at),
    checkedAt: row.checked_at ? new Date(row.checked_at) : null,
    reason: row.reason,
    nextCheckAt: row.next_check_at ? new Date(row.next_check_at) : null,
    redirect:
      row.redirect_to === null ? null : { to: row.redirect_to, status: row.redirect_status === 308 ? 308 : 301 },
  };
}

/**
 * The custom domains of DECISIONS "Custom domains while running", kept in the database.
 * @example const domains = createDomainStore(db, { check: createDnsCheck({ platformHost }) }); await domains.add('api.example.com')
 */
export function createDomainStore(hostDb: Kysely<Database>, options: DomainStoreOptions = {}): DomainStore {
  const db = storeDatabase(hostDb, schemaName(options.schema));
  const clock = options.clock ?? systemClock;
  const check = (name: string) => {
    if (!options.check) throw new Error('PETSTORE_PLATFORM_HOST is not set: domains cannot be verified without the host they must point at.');
    return options.check(name);
  };
  const find = async (name: string) =>
    db.selectFrom('domains').selectAll().where('name', '=', name).where('state', '!=', REMOVED).executeTakeFirst();

  /** Checks a domain and records the outcome; a failure by hand leaves a pending domain pending while its window lasts. */
  async function checkAndRecord(row: Selectable<DomainsTable>): Promise<DomainRecord | undefined> {
    const verdict = await check(row.name);
    const now = clock.now();
    const checks = row.checks + 1;
    const next = verdict.ok || row.state !== 'pending' ? undefined : nextRecheck({ addedAt: new Date(row.added_at).getTime(), checks, now });
    const state: DomainState = verdict.ok ? 'verified' : next === undefined ? 'failed' : 'pending';
    const updated = await db
      .updateTable('domains')
      .set({
        state,
        checked_at: new Date(now),
        reason: verdict.ok ? `found ${verdict.found}` : verdict.reason,
        checks,
        next_check_at: next === undefined ? null : new Date(next),
      })
      .where('name', '=', row.name)
      .returningAll()
      .executeTakeFirst();
    return updated && toRecord(updated);
  }

  return Object.freeze({
    async add(input) {
      const name = normalizeDomainName(input);
      if (name === undefined) return 'invalid';
      const now = new Date(clock.now());
      const fresh = { state: 'pending', added_at: now, checked_at: null, reason: null, checks: 0, next_check_at: now, redirect_to: null, redirect_status: null };
      const row = await db
        .insertInto('domains')
        .values({ name, ...fresh })
        .onConflict((oc) => oc.column('name').doUpdateSet(fresh).where('domains.state', '=', REMOVED))
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : 'exists';
    },
    async verify(input) {
      const row = await find(normalizeDomainName(input) ?? input);
      if (!row) return 'not_found';
      return (await checkAndRecord(row)) ?? 'not_found';
    },
    async list() {
      return (await db.selectFrom('domains').selectAll().where('state', '!=', REMOVED).orderBy('name').execute()).map(toRecord);
    },
    async get(input) {
      const row = await find(normalizeDomainName(input) ?? input);
      return row && toRecord(row);
    },
    async remove(input) {
      const result = await db
        .updateTable('domains')
        .set({ state: REMOVED, next_check_at: null, redirect_to: null, redirect_status: null })
        .where('name', '=', normalizeDomainName(input) ?? input)
        .where('state', '!=', REMOVED)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async redirect(input, redirect) {
      const target = redirect === null ? null : normalizeDomainName(redirect.to);
      if (target === undefined || (redirect && redirect.status !== 301 && redirect.status !== 308)) return 'invalid';
      const row = await db
        .updateTable('domains')
        .set({ redirect_to: target, redirect_status: redirect?.status ?? null })
        .where('name', '=', normalizeDomainName(input) ?? input)
        .where('state', '!=', REMOVED)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : 'not_found';
    },
    async recheckDue() {
      const now = new Date(clock.now());
      const due = await db
        .selectFrom('domains')
        .selectAll()
        .where('state', '=', 'pending')
        .where('next_check_at', '<=', now)
        .orderBy('next_check_at')
        .limit(50)
        .execute();
      let checked = 0;
      for (const row of due) {
        // Claimed by moving its next check ahead, only if no other instance has: one check per due domain per fleet.
        const claimed = await db
          .updateTable('domains')
          .set({ next_check_at: new Date(now.getTime() + CLAIM_MS) })
          .where('name', '=', row.name)
          .where('state', '=', 'pending')
          .where('next_check_at', '=', row.next_check_at)
          .returningAll()
          .executeTakeFirst();
        if (!claimed) continue;
        await checkAndRecord(claimed);
        checked++;
      }
      return checked;
    },
    async snapshot() {
      const rows = await db.selectFrom('domains').select(['name', 'state', 'redirect_to', 'redirect_status']).execute();
      const verified = new Map<string, DomainRedirect | undefined>();
      for (const row of rows) {
        if (row.state !== 'verified') continue;
        verified.set(row.name, row.redirect_to === null ? undefined : { to: row.redirect_to, status: row.redirect_status === 308 ? 308 : 301 });
      }
      return { managed: rows.length > 0, verified };
    },
  } satisfies DomainStore);
}
