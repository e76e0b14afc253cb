import type { Limits, PlanName } from './plans.js';

/**
 * A caller the host has already authenticated (a logged-in user, a tenant), counted under a plan of its own instead of
 * an API key: quotas, bans and rate-limit headers apply per principal exactly as per key. An `enterprise` principal
 * brings its own limits.
 * @example const principal: Principal = { id: `user:${session.userId}`, plan: 'pro' }
 */
export type Principal =
  | { readonly id: string; readonly plan: Exclude<PlanName, 'enterprise'> }
  | { readonly id: string; readonly plan: 'enterprise'; readonly limits: Limits };

/** What a quota counts a request against: an API key, or a principal. */
export interface QuotaSubject {
  /** Unique among subjects: a key's numeric id, or `p:` and a principal's id. */
  readonly id: number | string;
  readonly limits: Limits;
}

/**
 * A principal as a quota subject, kept apart from every API key by its `p:` prefix.
 * @example quotaSubject({ id: 'user:7', plan: 'free' }) // { id: 'p:user:7', limits: { perMinute: 60, perDay: 1000 } }
 */
export function quotaSubject(principal: Principal, planLimits: Readonly<Record<PlanName, Limits>>): QuotaSubject {
  if (typeof principal.id !== 'string' || principal.id.length === 0 || principal.id.length > 200) {
    throw new RangeError('A principal id must be a string of 1 to 200 characters.');
  }
  const limits = principal.plan === 'enterprise' ? principal.limits : planLimits[principal.plan];
  if (!limits) throw new RangeError(`Unknown plan "${(principal as { plan: string }).plan}" for a principal.`);
  return { id: `p:${principal.id}`, limits };
}
