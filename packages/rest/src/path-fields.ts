import { invalidRequest, type ValidationIssue } from '@petstore/core';
import type { z } from 'zod';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The input of an operation read from a JSON body and path placeholders: the body's fields and the path's. A body
 * that repeats a path field is refused with 400 `invalid_request` (the document's body leaves path fields out, and
 * the path's value must never silently replace the body's), listing every other failing field with it. A body that
 * is not an object is passed on for the core to refuse.
 * @example bodyWithPath(input, ['petId'], { petId: 5 }, { status: 'sold' }) // { status: 'sold', petId: 5 }
 */
export function bodyWithPath(
  schema: z.ZodType,
  pathFields: readonly string[],
  path: Record<string, unknown>,
  body: unknown,
): unknown {
  if (body !== undefined && !isRecord(body)) return body;
  const input = { ...body, ...path };
  const repeated = body === undefined ? [] : pathFields.filter((name) => Object.hasOwn(body, name));
  if (repeated.length === 0) return input;
  const issues: ValidationIssue[] = repeated.map((name) => ({ path: [name], message: 'is read from the path; the body must not repeat it' }));
  const rest = schema.safeParse(input);
  throw invalidRequest(rest.success ? issues : [...issues, ...rest.error.issues]);
}
