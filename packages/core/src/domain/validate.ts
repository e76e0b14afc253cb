import type { z } from 'zod';
import { PetStoreError, type ErrorDetail } from '../errors/index.js';

/**
 * Parses a value with a schema, turning every failure into one 400 `invalid_request` listing every failing field.
 * @example const input = validate(NewPet, body)
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.flatMap((issue) => {
    const path = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        message: 'is not a known field',
      }));
    }
    return [{ path, message: issue.message }];
  });
  const fields = [...new Set(details.map((d) => d.path || '(body)'))].join(', ');
  throw new PetStoreError('invalid_request', `Invalid value for: ${fields}.`, { details });
}
