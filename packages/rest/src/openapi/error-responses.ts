import type { Schema } from './openapi-types.js';
import { inputSources } from '../input-sources.js';
import { errorCodes, PetStoreError, type ErrorCode, type OperationDefinition } from '@petstore/core';
import { BODY_LIMIT } from '@petstore/http';

/**
 * Bounds on the Error body, from the largest body the service reads: a message or a detail's path names at most
 * the fields of one body, plus fixed words, and each field costs at least 4 bytes of JSON (`"a":0`).
 */
const MAX_TEXT = BODY_LIMIT + 1024;
const MAX_DETAILS = BODY_LIMIT / 4;

/**
 * The SPEC Error body as JSON Schema: `code`, `message`, `status`, and `details` for validation failures.
 * @example doc.components.schemas.Error = errorSchema
 */
export const errorSchema: Schema = {
  type: 'object',
  description: 'The body of every error response.',
  properties: {
    code: { type: 'string', enum: Object.keys(errorCodes), description: 'Machine-readable error code.' },
    message: { type: 'string', description: 'Human-readable description.', maxLength: MAX_TEXT },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.', format: 'int32' },
    details: {
      type: 'array',
      description: 'Every failing field, for validation failures.',
      items: {
        type: 'object',
        properties: {
          path: {
            type: 'string',
            description: 'Where the value sits, dot-separated; empty for the value as a whole.',
            maxLength: MAX_TEXT,
          },
          message: { type: 'string', maxLength: MAX_TEXT },
        },
        required: ['path', 'message'],
        additionalProperties: false,
      },
      maxItems: MAX_DETAILS,
    },
  },
  required: ['code', 'message', 'status'],
  additionalProperties: false,
};

/**
 * The error codes an operation can answer with, from what its definition says about its input and lifecycle.
 * @example errorCodesOf(operations.getPet).includes('gone') // true
 */
export function errorCodesOf(op: OperationDefinition): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_request', 'missing_api_key', 'invalid_api_key'];
  const sources = inputSources(op);
  if (sources.body) codes.push('malformed_json', 'request_timeout', 'payload_too_large', 'unsupported_media_type');
  if (op.writes) codes.push('idempotency_key_reused');
  if (op.writes && op.conditional) codes.push('precondition_failed');
  if (sources.path.length > 0) codes.push('not_found');
  if (op.deprecation) codes.push('gone');
  codes.push('rate_limited', 'api_key_banned', 'unavailable', 'internal_error');
  return codes;
}

/**
 * The codes grouped by HTTP status, in ascending status order.
 * @example byStatus(['missing_api_key', 'invalid_request']) // Map { 400 => ['invalid_request'], 401 => […] }
 */
export function byStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of [...codes].sort((a, b) => errorCodes[a].status - errorCodes[b].status)) {
    const status = errorCodes[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return groups;
}

/**
 * The content of an error response: the Error schema with one example per code.
 * @example errorContent(['gone'])['application/json'].examples.gone.value.status // 410
 */
export function errorContent(codes: readonly ErrorCode[]) {
  const examples = Object.fromEntries(codes.map((code) => [code, { value: new PetStoreError(code).toBody() }]));
  return { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } };
}

/**
 * A response description naming its codes.
 * @example errorDescription(['gone']) // '`gone`: This operation has been removed.'
 */
export function errorDescription(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${errorCodes[code].message}`).join(' ');
}
