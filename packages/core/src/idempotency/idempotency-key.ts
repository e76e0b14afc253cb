import { z } from 'zod';
import { invalidRequest } from '../domain/validate.js';

/** Where a bad key is reported in `details`: the header's name. */
const PATH = 'Idempotency-Key';

const LENGTH = 'must be 1 to 255 characters long';

/**
 * The `Idempotency-Key` header: 1 to 255 visible ASCII characters (`!` to `~`, no spaces), compared exactly.
 * @example IdempotencyKey.safeParse('9f1c4e2a-order-17').success // true
 */
export const IdempotencyKey = z
  .string()
  .min(1, LENGTH)
  .max(255, LENGTH)
  .regex(/^[\x21-\x7E]*$/, 'must contain only visible ASCII characters, without spaces')
  .meta({ description: 'A key the client chooses, unique per request it means.', example: '9f1c4e2a-order-17' });
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;

/**
 * Validates an input and, when one is given, its Idempotency-Key, so one 400 `invalid_request` lists both.
 * @example const input = validateWithIdempotencyKey(NewPet, body, context.idempotencyKey)
 */
export function validateWithIdempotencyKey<S extends z.ZodType>(
  schema: S,
  input: unknown,
  key: string | undefined,
): z.output<S> {
  const body = schema.safeParse(input);
  const keyResult = key === undefined ? undefined : IdempotencyKey.safeParse(key);
  if (body.success && (keyResult === undefined || keyResult.success)) return body.data;
  const keyIssues = keyResult?.error ? [{ path: [PATH], message: keyResult.error.issues[0]!.message }] : [];
  throw invalidRequest([...(body.error?.issues ?? []), ...keyIssues]);
}
