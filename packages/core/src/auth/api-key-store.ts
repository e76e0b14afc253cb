import { sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { shownText } from '../domain/visible-text.js';
import { CONFIGURED_API_KEY_RULE, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import { labelProblem } from './key-label.js';
import { PLAN_NAMES, plans, type Limits, type PlanName } from './plans.js';
import { MAX_GRACE_MS } from './rotation-grace.js';
import { schemaName, storeDatabase, type StoreSchema } from '../storage/schema.js';

/** An API key as stored: everything but the secret. */
export interface ApiKeyRecord {
  id: number;
  label: string | null;
  plan: PlanName;
  /** The limits in force: the plan's, or the key's own for `enterprise`. */
  limits: Limits;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** When the key stops working: its own expiry, or the end of a rotation's grace period. Null or absent: never. */
  expiresAt?: Date | null;
  /** The id of the key that replaced this one in a rotation; null or absent: none. */
  replacedBy?: number | null;
  /**
   * The id of the key whose quota and ban this one shares: the first key of its rotation, so that a rolled key and
   * its successor count as one during the grace period. Absent: its own `id`.
   */
  quotaKeyId?: number;
}

/** What {@link ApiKeyStore.roll} answers: the new key (shown only this once) and the old key as it is now. */
export interface RolledApiKey {
  key: string;
  record: ApiKeyRecord;
  previous: ApiKeyRecord;
}

/** Creates, lists, limits and revokes keys; keys are stored as SHA-256 hashes only. */
export interface ApiKeyStore {
  /** Makes a new key; the returned `key` is the only time the secret is seen. `expiresAt` must lie ahead. */
  create(options: {
    plan: PlanName;
    /** A name for the key: 1 to 100 characters that show as written (`labelProblem`); a RangeError otherwise. */
    label?: string | null;
    limits?: Limits;
    expiresAt?: Date | null;
  }): Promise<{ key: string; record: ApiKeyRecord }>;
  /**
   * Rotates a key: a new key with its label, plan, limits and expiry (or `expiresAt`), while the old one keeps
   * working for `graceMs` more (never past its own expiry), then stops as if expired.
   * @example const rolled = await keys.roll(7, { graceMs: 86_400_000 }); if (typeof rolled !== 'string') print(rolled.key)
   */
  roll(
    id: number,
    options: { graceMs: number; expiresAt?: Date | null },
  ): Promise<RolledApiKey | 'not_found' | 'revoked' | 'expired' | 'already_rolled'>;
  /** Makes a configured key exist with this plan (and limits, for enterprise); a revoked key stays revoked. */
  ensure(key: string, options: { plan: PlanName; limits?: Limits; label?: string }): Promise<ApiKeyRecord>;
  list(): Promise<ApiKeyRecord[]>;
  /** Revokes a key; false when no such key exists. */
  revoke(id: number): Promise<boolean>;
  /** Sets the limits of an enterprise key; other plans keep their plan's limits. */
  setLimits(id: number, limits: Limits): Promise<'updated' | 'not_found' | 'not_enterprise'>;
  /** The record stored under this hash, if any. */
  findByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined>;
  /** Records that a key was used. */
  touch(id: number, at: Date): Promise<void>;
  /** How many keys exist that are neither revoked nor expired. */
  countActive(): Promise<number>;
  /**
   * Whether any key was ever stored here, revoked and expired ones included (rows are never deleted), so a start-up
   * can tell a database that never held a key from one whose keys were all revoked.
   * @example if (!(await keys.everHeldAKey())) await keys.create({ plan: 'free', label: 'development' })
   */
  everHeldAKey(): Promise<boolean>;
}

type Row = {
  id: number | string;
  key_hash: string;
  label: string | null;
  plan: string;
  per_minute: number | null;
  per_day: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  replaced_by: number | string | null;
  quota_key_id: number | string | null;
};

function toRecord(row: Row): ApiKeyRecord & { hash: string } {
  const plan = row.plan as PlanName;
  const limits =
    plan === 'enterprise' && row.per_minute && row.per_day
      ? { perMinute: row.per_minute, perDay: row.per_day }
      : plans[plan];
  return {
    id: Number(row.id),
    hash: row.key_hash,
    label: row.label,
    plan,
    limits,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    replacedBy: row.replaced_by === null ? null : Number(row.replaced_by),
    quotaKeyId: Number(row.quota_key_id ?? row.id),
  };
}

function assertPlan(plan: string): asserts plan is PlanName {
  if (!(PLAN_NAMES as readonly string[]).includes(plan)) {
    throw new RangeError(`Unknown plan "${plan}"; plans are ${PLAN_NAMES.join(', ')}.`);
  }
}

function assertLimits(limits: Limits) {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647) {
      throw new RangeError(`${name} must be a whole number from 1 to 2147483647, not ${value}.`);
    }
  }
}

/**
 * The api_keys table, in `schema` when given (as the store's). The clock decides what "now" is for expiry and rotation.
 * @example const { key } = await createApiKeyStore(db, { clock }).create({ plan: 'free', label: 'ci' })
 */
export function createApiKeyStore(hostDb: Kysely<Database>, options: { clock?: Clock } & StoreSchema = {}): ApiKeyStore {
  const clock = options.clock ?? systemClock;
  const db = storeDatabase(hostDb, schemaName(options.schema));
  const COLUMNS = [
    'id',
    'key_hash',
    'label',
    'plan',
    'per_minute',
    'per_day',
    'created_at',
    'last_used_at',
    'revoked_at',
    'expires_at',
    'replaced_by',
    'quota_key_id',
  ] as const;
  const select = () => db.selectFrom('api_keys').select(COLUMNS);

  function assertLabel(label: string | null) {
    const problem = label === null ? undefined : labelProblem(label);
    if (problem) throw new RangeError(`A key's label ${problem}, not "${shownText(label!)}".`);
  }

  function assertAhead(expiresAt: Date | null | undefined) {
    if (expiresAt == null) return;
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= clock.now()) {
      throw new RangeError(`expiresAt must be a time ahead, not ${expiresAt.toISOString?.() ?? expiresAt}.`);
    }
  }

  return {
    async create({ plan, label = null, limits, expiresAt = null }) {
      assertPlan(plan);
      assertLabel(label);
      if (limits) assertLimits(limits);
      assertAhead(expiresAt);
      const key = generateApiKey();
      const row = await db
        .insertInto('api_keys')
        .values({
          key_hash: hashApiKey(key),
          label,
          plan,
          per_minute: plan === 'enterprise' ? (limits?.perMinute ?? null) : null,
          per_day: plan === 'enterprise' ? (limits?.perDay ?? null) : null,
          expires_at: expiresAt,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return { key, record: toRecord(row) };
    },
    async roll(id, { graceMs, expiresAt }) {
      if (!Number.isSafeInteger(graceMs) || graceMs < 0 || graceMs > MAX_GRACE_MS) {
        throw new RangeError(`graceMs must be a whole number from 0 to ${MAX_GRACE_MS}, not ${graceMs}.`);
      }
      assertAhead(expiresAt);
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const old = await trx.selectFrom('api_keys').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
        if (!old) return 'not_found';
        if (old.revoked_at) return 'revoked';
        if (old.expires_at && old.expires_at.getTime() <= now) return 'expired';
        if (old.replaced_by !== null) return 'already_rolled';
        const key = generateApiKey();
        const row = await trx
          .insertInto('api_keys')
          .values({
            key_hash: hashApiKey(key),
            label: old.label,
            plan: old.plan,
            per_minute: old.per_minute,
            per_day: old.per_day,
            expires_at: expiresAt === undefined ? old.expires_at : expiresAt,
            // One quota and one ban for the whole rotation: the first key's.
            quota_key_id: Number(old.quota_key_id ?? old.id),
          })
          .returning(COLUMNS)
          .executeTakeFirstOrThrow();
        const graceEnd = new Date(now + graceMs);
        const previous = await trx
          .updateTable('api_keys')
          .set({
            expires_at: old.expires_at && old.expires_at < graceEnd ? old.expires_at : graceEnd,
            replaced_by: Number(row.id),
          })
          .where('id', '=', id)
          .returning(COLUMNS)
          .executeTakeFirstOrThrow();
        return { key, record: toRecord(row), previous: toRecord(previous) };
      });
    },
    async ensure(key, { plan, limits, label = 'configured' }) {
      assertLabel(label);
      assertPlan(plan);
      if (limits) assertLimits(limits);
      if (!isWellFormedApiKey(key)) {
        throw new RangeError(`A configured API key ${CONFIGURED_API_KEY_RULE}.`);
      }
      const values = {
        plan,
        per_minute: plan === 'enterprise' ? (limits?.perMinute ?? null) : null,
        per_day: plan === 'enterprise' ? (limits?.perDay ?? null) : null,
      };
      const row = await db
        .insertInto('api_keys')
        .values({ key_hash: hashApiKey(key), label, ...values })
        .onConflict((oc) => oc.column('key_hash').doUpdateSet(values))
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    async list() {
      const rows = await select().orderBy('id').execute();
      return rows.map(toRecord);
    },
    async revoke(id) {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async setLimits(id, limits) {
      assertLimits(limits);
      const result = await db
        .updateTable('api_keys')
        .set({ per_minute: limits.perMinute, per_day: limits.perDay })
        .where('id', '=', id)
        .where('plan', '=', 'enterprise')
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) return 'updated';
      return (await select().where('id', '=', id).executeTakeFirst()) ? 'not_enterprise' : 'not_found';
    },
    async findByHash(hash) {
      const row = await select().where('key_hash', '=', hash).executeTakeFirst();
      return row && toRecord(row);
    },
    async touch(id, at) {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
    async countActive() {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date(clock.now()))]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async everHeldAKey() {
      return (await db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
  };
}
