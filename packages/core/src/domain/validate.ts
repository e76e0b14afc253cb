import type { z } from 'zod';
import { PetStoreError, type ErrorDetail } from '../errors/index.js';

/** A validation issue as zod (or any Standard Schema library) reports it. */
export interface ValidationIssue {
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  readonly message: string;
  readonly code?: string;
  readonly keys?: readonly string[];
}

/**
 * The 400 `invalid_request` for a list of validation issues: one detail per failing field, unknown fields by name.
 * @example throw invalidRequest(result.error.issues)
 */
export function invalidRequest(issues: readonly ValidationIssue[], options?: { cause?: unknown }): PetStoreError {
  const details: ErrorDetail[] = issues.flatMap((issue) => {
    const path = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: 'is not a known field' }));
    }
    return [{ path, message: issue.message }];
  });
  const fields = [...new Set(details.map((d) => d.path || '(body)'))].join(', ');
  return new PetStoreError('invalid_request', `Invalid value for: ${fields}.`, { details, cause: options?.cause });
}

/**
 * Parses a value with a schema, turning every failure into one 400 `invalid_request` listing every failing field.
 * @example const input = validate(NewPet, body)
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidRequest(result.error.issues);
}
