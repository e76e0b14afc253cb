/** The plans of SPEC section 8. */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** Requests allowed per fixed 60-second window and per UTC calendar day. */
export interface Limits {
  perMinute: number;
  perDay: number;
}

/**
 * The limits of each plan: one table, one place. Enterprise keys carry their own limits; until set, they get these.
 * @example plans.free.perMinute // 60
 */
export const plans: Readonly<Record<PlanName, Limits>> = Object.freeze({
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: { perMinute: 1_000, perDay: 100_000 },
});
