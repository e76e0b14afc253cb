import { z } from 'zod';
import { PLAN_NAMES } from '../auth/plans.js';

/** The most rows `today.operations` can hold: far above the operations of the interface (and `unmatched`). */
const MAX_OPERATIONS = 100;

const count = (description: string) => z.int().min(0).meta({ description, format: 'int64' });

/** Requests of one day by how they ended. */
export const UsageCounts = z
  .strictObject({
    served: count('Requests answered with success (2xx), counted against the plan.'),
    unmetered: count('Requests answered with success that count against no window of the plan (`getUsage`).'),
    rateLimited: count('Requests refused with 429 `rate_limited`.'),
    banned: count('Requests refused with 429 `api_key_banned`.'),
    clientErrors: count('Requests answered with another 4xx.'),
    serverErrors: count('Requests answered with a 5xx.'),
  })
  .meta({ id: 'UsageCounts' });
export type UsageCounts = z.infer<typeof UsageCounts>;

/** One quota window of the caller's plan as it stands. */
export const UsageWindow = z
  .strictObject({
    name: z.enum(['minute', 'day']).meta({ description: 'The window: the fixed minute, or the UTC day.' }),
    limit: z.int().min(0).meta({ description: 'Requests the window allows.', format: 'int64' }),
    remaining: z.int().min(0).meta({ description: 'Requests left in the window.', format: 'int64' }),
    reset: z.int().min(0).meta({ description: 'Unix time (seconds) at which the window resets.', format: 'int64' }),
  })
  .meta({ id: 'UsageWindow' });

/** The body of `getUsage`: where the caller stands, and what it used today. */
export const Usage = z
  .strictObject({
    plan: z.enum(PLAN_NAMES).meta({ description: "The caller's plan." }),
    windows: z
      .array(UsageWindow)
      .max(2)
      .meta({ description: 'The windows of the plan, the binding one first (as the rate-limit headers).' }),
    bannedUntil: z.iso
      .datetime()
      .meta({ maxLength: 30 })
      .nullable()
      .meta({ description: 'When the ban of the key ends, while it is banned; else null.' }),
    today: UsageCounts.extend({
      day: z.iso.date().meta({ description: 'The UTC day counted.', maxLength: 10 }),
      operations: z
        .array(UsageCounts.extend({ operationId: z.string().max(64).meta({ description: 'The operation called, or `unmatched`.' }) }))
        .max(MAX_OPERATIONS)
        .meta({ description: "Today's requests by operation (each operation of the interface, and `unmatched`)." }),
    }).meta({
      description:
        "Today's requests (UTC), all instances together: this instance's at once, other instances' within the ledger's delay (5 s by default).",
    }),
  })
  .meta({ id: 'Usage' });
export type Usage = z.infer<typeof Usage>;
