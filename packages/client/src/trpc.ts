export { petStoreRetryLink } from './trpc/petstore-retry-link.js';
export { petStoreLinks, type PetStoreLinksOptions } from './trpc/petstore-links.js';
export { idempotencyKeyHeader } from './trpc/idempotency-key-header.js';
export { ifMatchHeader } from './trpc/if-match-header.js';
export type { RetryLinkOptions } from './trpc/retry-options.js';
export type { RateLimitFields, RateLimitHandler, RateLimitWindow } from './rate-limit-fields.js';
export { clientDefaults } from './client-defaults.js';
