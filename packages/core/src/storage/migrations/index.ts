import type { Migration } from '../migration-types.js';
import { petsAndApiKeys } from './001-pets-and-api-keys.js';
import { rateLimits } from './002-rate-limits.js';
import { idempotency } from './003-idempotency.js';
import { deprecatedCalls } from './2026-11-23-deprecated-calls.js';
import { keyLifecycle } from './2026-11-23-key-lifecycle.js';
import { domains } from './2026-11-24-domains.js';
import { keyQuota } from './2026-11-27-key-quota.js';
import { usage } from './2026-11-27-usage.js';
import { petVersions } from './2026-12-03-pet-versions.js';
import { orders } from './2026-12-03-orders.js';
import { knownKeysByAddress } from './2026-12-03-known-keys-by-address.js';
import { webhooks } from './2026-12-03-webhooks.js';
import { webhookBacklog } from './2026-12-03-webhook-backlog.js';
import { webhookTriggersSkip } from './2026-12-03-webhook-triggers-skip.js';

/** One migration of the store, making its tables in the schema given (unqualified names when undefined). */
type MigrationIn = (schema: string | undefined) => Migration;

/**
 * A contract step: a migration that takes away or narrows what an earlier release reads or writes (drops or renames a
 * table or column, narrows a type, adds a NOT NULL column without a default). Releases that do not know it cannot run
 * on the schema it leaves, so it moves the compatibility floor to `oldestRelease`, the first release that ships it.
 */
export interface ContractStep {
  readonly oldestRelease: string;
  readonly migration: MigrationIn;
}

/**
 * Marks a migration in the registry below as a contract step, naming the release from which on the schema needs it.
 * Every other migration only adds, which `migrations-only-add.test.ts` checks against the database's catalogue.
 * @example '2027-02-01-050-drop-legacy-column': contractStep('@petstore/server@0.4.0', dropLegacyColumn),
 */
export const contractStep = (oldestRelease: string, migration: MigrationIn): ContractStep => ({ oldestRelease, migration });

/**
 * Every migration, by name; names sort in the order they run. Append only. A migration only adds (tables, nullable or
 * defaulted columns, indexes), so the release before it runs on the schema it leaves; a contract step says otherwise.
 */
const migrationsIn: Record<string, MigrationIn | ContractStep> = {
  '2026-11-21-001-pets-and-api-keys': petsAndApiKeys,
  '2026-11-21-002-rate-limits': rateLimits,
  '2026-11-21-003-idempotency': idempotency,
  '2026-11-23-010-deprecated-calls': deprecatedCalls,
  '2026-11-23-011-key-lifecycle': keyLifecycle,
  '2026-11-24-020-domains': domains,
  '2026-11-27-030-key-quota': keyQuota,
  '2026-11-27-031-usage': usage,
  '2026-12-03-040-pet-versions': petVersions,
  '2026-12-03-041-orders': orders,
  '2026-12-03-042-known-keys-by-address': knownKeysByAddress,
  '2026-12-03-050-webhooks': webhooks,
  '2026-12-03-051-webhook-backlog': webhookBacklog,
  '2026-12-03-052-webhook-triggers-skip': webhookTriggersSkip,
};

/** The names of every migration of the store. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrationsIn);

/** The contract steps among them, by name, with the release each moved the floor to. */
export const CONTRACT_STEPS: ReadonlyMap<string, string> = new Map(
  Object.entries(migrationsIn).flatMap(([name, step]) => (typeof step === 'function' ? [] : [[name, step.oldestRelease] as const])),
);

/**
 * The oldest release that may run on the schema these migrations make, and the migration a release must know to be
 * it or a later one (what a release reads from the database, where versions of builds between releases do not
 * compare). The first release to record a floor is 0.2.0, which every later release follows; a contract step moves
 * it to its own release and name. Recorded in `petstore_release` by every release that opens the database.
 */
export const COMPATIBILITY_FLOOR: { readonly release: string; readonly migration: string } = Object.freeze(
  [...CONTRACT_STEPS].map(([migration, release]) => ({ release, migration })).at(-1) ?? {
    release: '@petstore/server@0.2.0',
    migration: MIGRATION_NAMES[0]!,
  },
);

/** Every migration, by name, making its tables in `schema` (unqualified names when undefined). */
export function migrations(schema: string | undefined): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrationsIn).map(([name, step]) => [name, (typeof step === 'function' ? step : step.migration)(schema)]),
  );
}
