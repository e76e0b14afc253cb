import type { Usage } from '../domain/usage-schemas.js';
import type { RateLimitWindow } from '../service/response-meta.js';
import { utcDay, type UsageLedger, type UsageSubject } from './usage-ledger.js';

const OUTCOMES = ['served', 'unmetered', 'rateLimited', 'banned', 'clientErrors', 'serverErrors'] as const;
const zero = () => ({ served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 });

/**
 * Where a caller stands (`getUsage`'s answer): its plan, its windows as the call left them (no ban: a banned caller gets its 429) and today's
 * counts by operation, this instance's pending counts included.
 * @example await usageToday(ledger, clock.now(), { keyId: 7 }, 'pro', meta.rateLimit ?? [])
 */
export async function usageToday(
  ledger: UsageLedger,
  now: number,
  subject: UsageSubject,
  plan: string,
  windows: readonly RateLimitWindow[],
): Promise<Usage> {
  const day = utcDay(now);
  const rows = await ledger.query({ from: day, to: day, ...subject });
  const today = { day, ...zero(), operations: [] as ({ operationId: string } & ReturnType<typeof zero>)[] };
  for (const row of rows) {
    let entry = today.operations.find((one) => one.operationId === row.operationId);
    if (!entry) today.operations.push((entry = { operationId: row.operationId, ...zero() }));
    for (const outcome of OUTCOMES) {
      entry[outcome] += row[outcome];
      today[outcome] += row[outcome];
    }
  }
  return {
    plan: plan as Usage['plan'],
    windows: windows
      .filter((window) => window.name === 'minute' || window.name === 'day')
      .map(({ name, limit, remaining, resetAt }) => ({ name: name as 'minute' | 'day', limit, remaining, reset: resetAt })),
    // A banned caller is refused with its 429 before the operation runs: one that gets this answer is not banned.
    bannedUntil: null,
    today,
  };
}
