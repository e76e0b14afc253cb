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

/** Every migration, by name, each making its tables in the schema given; names sort in the order they run. Append only. */
const migrationsIn = {
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
} satisfies Record<string, (schema: string | undefined) => Migration>;

/** The names of every migration of the store. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrationsIn);

/** Every migration, by name, making its tables in `schema` (unqualified names when undefined). */
export function migrations(schema: string | undefined): Record<string, Migration> {
  return Object.fromEntries(Object.entries(migrationsIn).map(([name, migration]) => [name, migration(schema)]));
}
