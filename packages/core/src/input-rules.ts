/*
 * `@petstore/core/input-rules`: the rules a command line is checked against, loaded without the store (no kysely, zod
 * or operation registry), so a key tool refuses a wrong value in milliseconds, before it loads anything heavy.
 */
export { PLAN_NAMES, plans, type Limits, type PlanName } from './auth/plans.js';
export { MAX_GRACE_MS } from './auth/rotation-grace.js';
export { normalizeDomainName } from './domains/domain-name.js';
export { labelProblem, MAX_LABEL_LENGTH } from './auth/key-label.js';
export { shownJson, shownText } from './domain/visible-text.js';
