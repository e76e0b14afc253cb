import type { OperationDefinition } from '@petstore/core';
import { z } from 'zod';
import type { ZodOpenApiParameters } from 'zod-openapi';
import { inputSources } from '../input-sources.js';
import type { Parameter } from './openapi-types.js';

/**
 * The input as an object schema: REST reads path and query values by field name, so an operation with path or
 * query input must take an object.
 */
export function inputObject(op: OperationDefinition): z.ZodObject {
  if (op.input instanceof z.ZodObject) return op.input;
  throw new Error(`${op.operationId}: REST reads its input from the path or query string, so it must be an object.`);
}

/** The fields a list of names selects, as the mask `pick` and `omit` take (names only, never indexes). */
export const maskOf = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, true] as const)) as Record<string, true> & Record<number, never>;

/**
 * The path and query parameters of an operation, as zod schemas for zod-openapi: the path's `{placeholders}`, and
 * for GET and DELETE every other input field in the query string (see `inputSources`).
 * @example requestParams(operations.getPet) // { path: GetPetInput.pick({ petId: true }) }
 */
export function requestParams(op: OperationDefinition): ZodOpenApiParameters | undefined {
  const sources = inputSources(op);
  if (sources.path.length === 0 && sources.body) return undefined;
  const input = inputObject(op);
  const params: ZodOpenApiParameters = {};
  if (sources.path.length > 0) params.path = input.pick(maskOf(sources.path));
  const query = sources.path.length > 0 ? input.omit(maskOf(sources.path)) : input;
  if (!sources.body && Object.keys(query.shape).length > 0) params.query = query;
  return params;
}

/** An entity tag list as `If-Match` and `If-None-Match` take it (RFC 9110 13.1): `*`, or quoted tags. */
const ETAG_LIST = { type: 'string', minLength: 1, maxLength: 8192, pattern: '^(\\*|(W/)?"[^"]*"( *, *(W/)?"[^"]*")*)$' } as const;

/**
 * The condition request headers of a conditional operation: `If-None-Match` on a read, `If-Match` on a write.
 * @example operation.parameters = conditionParameters(operations.updatePet)
 */
export function conditionParameters(op: OperationDefinition): Parameter[] {
  if (!op.conditional) return [];
  if (!op.writes) {
    return [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description:
          'The `ETag` of the answer the client holds: when it still matches, 304 with no body, counted against no ' +
          'rate-limit window (the key must still be valid and within its windows).',
        schema: ETAG_LIST,
      },
    ];
  }
  return [
    {
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of the version the change is meant for (or `*`): when the animal is at another version, 412 ' +
        '`precondition_failed` with the current `ETag`, and nothing changes. Without it the last change wins.',
      schema: ETAG_LIST,
    },
  ];
}

/**
 * The `Idempotency-Key` request header of an operation that writes (DECISIONS, "Idempotency").
 * @example operation.parameters = op.writes ? [idempotencyKeyParameter] : []
 */
export const idempotencyKeyParameter: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: a repeat with the same key and body within 24 hours returns the first ' +
    'response with `Idempotent-Replayed: true`; the same key with another body gives 409 `idempotency_key_reused`.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
