export { systemClock, type Clock } from './clock.js';
export * from './errors/index.js';
export * from './domain/pet-schemas.js';
export { encodeCursor, decodeCursor } from './domain/cursor.js';
export { validate, invalidRequest, type ValidationIssue } from './domain/validate.js';
export {
  operations,
  type OperationDefinition,
  type OperationEnv,
  type OperationId,
  type Deprecation,
  type Stability,
} from './operations/operations.js';
export { defineOperation } from './operations/operation.js';
export type { ResponseMeta, RateLimitWindow } from './service/response-meta.js';
export { unlimitedQuota, type Quota, type QuotaStanding } from './service/quota.js';
export { createQuota, type ClosableQuota, type QuotaOptions, type QuotaStore } from './quota/create-quota.js';
export type { KeptCountersOptions } from './quota/kept-counters.js';
export type { PostgresPoolLike } from './quota/postgres-counters.js';
export { DEFAULT_REDIS_KEY_PREFIX, type RedisLike } from './quota/redis-counters.js';
export { retryAfterSeconds } from './quota/windows.js';
export {
  createPetStore,
  type PetStore,
  type OperationMethods,
  type PetStoreOptions,
  type CallContext,
  type InputReader,
  type Admitted,
  type Outcome,
  type CountedRequest,
} from './service/pet-store.js';
export { CONFIGURED_API_KEY_RULE, generateApiKey, hashApiKey, isWellFormedApiKey } from './auth/api-key-format.js';
export {
  createApiKeyStore,
  type ApiKeyStore,
  type ApiKeyRecord,
  type RolledApiKey,
} from './auth/api-key-store.js';
export { MAX_GRACE_MS } from './auth/rotation-grace.js';
export { labelProblem, MAX_LABEL_LENGTH } from './auth/key-label.js';
export { shownJson, shownText } from './domain/visible-text.js';
export { createAuthenticator, invalidApiKey, type Authenticator, type KeyVerdict } from './auth/authenticator.js';
export { plans, PLAN_NAMES, type PlanName, type Limits } from './auth/plans.js';
export { quotaSubject, type Principal, type QuotaSubject } from './auth/principal.js';
export { IdempotencyKey } from './idempotency/idempotency-key.js';
export {
  createIdempotencyStore,
  IDEMPOTENCY_WINDOW_MS,
  type IdempotencyStore,
  type IdempotentRequest,
  type IdempotentResult,
} from './idempotency/idempotency-store.js';
export type { DeprecatedUsage } from './usage/deprecated-usage.js';
export { Usage, UsageCounts, UsageWindow } from './domain/usage-schemas.js';
export { readUsage, utcDay, type UsageOutcome, type UsageQuery, type UsageRow, type UsageSubject } from './usage/usage-ledger.js';
export type { Database } from './storage/database.js';
export type { Migration, MigrationProvider } from './storage/migration-types.js';
export {
  migrateToLatest,
  petStoreMigrations,
  MIGRATION_TABLE,
  MIGRATION_LOCK_TABLE,
  type MigrateOptions,
} from './storage/migrations.js';
export { COMPATIBILITY_FLOOR } from './storage/migrations/index.js';
export { DatabaseOfNewerReleaseError, RELEASE_TABLE, type CompatibilityFloor } from './storage/release-record.js';
export { defaultSchema } from './storage/schema.js';
export type { StoreSchema } from './storage/schema.js';
export { normalizeDomainName } from './domains/domain-name.js';
export type { DnsCheck, DnsVerdict } from './domains/dns-verdict.js';
export { nextRecheck, RECHECK_WINDOW_MS } from './domains/recheck-backoff.js';
export {
  createDomainStore,
  type DomainStore,
  type DomainStoreOptions,
  type DomainRecord,
  type DomainRedirect,
  type DomainState,
  type DomainHostsSnapshot,
} from './domains/domain-store.js';
export { countedInto, WEBHOOK_REFUSAL_REASONS, type PetStoreMetrics, type UnavailableReason, type WebhookBacklog } from './telemetry/metrics.js';
export { timedCalls } from './telemetry/timed-calls.js';
export { STORE_TRACER_NAME, type TracerProviderLike } from './telemetry/tracer-provider.js';
export { loadOptional } from './optional-package.js';
export * from './domain/webhook-schemas.js';
export { DEFAULT_RETRY_SCHEDULE_MS, deliveryBody, type AttemptOutcome, type DeliveryTuning } from './webhooks/delivery-worker.js';
export type { WebhookOptions } from './webhooks/webhooks.js';
export { isPublicAddress } from './webhooks/address-rule.js';
export {
  checkScheme,
  hostOf,
  resolveTarget,
  TargetRefusedError,
  type RefusalReason,
  type ResolveHost,
  type ResolvedAddress,
  type TargetRule,
} from './webhooks/targets.js';
export type { SendDelivery, Sending, WebhookTransport } from './webhooks/transport.js';
export { createWebhookRepository, type DueDelivery, type WebhookRepository } from './storage/webhook-repository.js';
export { createWebhookAdmin, type OperatorDelivery, type OperatorWebhook, type WebhookAdmin, type WebhookOwner } from './storage/webhook-admin.js';
