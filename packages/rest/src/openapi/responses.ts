import type { OperationDefinition } from '@petstore/core';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { z } from 'zod';
import { byStatus, errorCodesOf, errorContent, errorDescription } from './error-responses.js';
import { commonHeaders, corsHeaders, deprecationHeaders, headerRefs, nextLinkHeader } from './headers.js';

/** Whether the operation pages with a `cursor` input field, so its answer may carry `Link: rel="next"`. */
const pagesByCursor = (op: OperationDefinition) => op.input instanceof z.ZodObject && 'cursor' in op.input.shape;

const DESCRIPTIONS = { 200: 'OK.', 201: 'Created.', 202: 'Accepted: the work is done later.', 204: 'Done: no content.' } as const;

/** The success response: the output schema under the operation's own status (none for 204), with its headers. */
function successResponse(op: OperationDefinition, baseUrl: string) {
  // Every answer carrying one Pet, and every conditional read's, has an ETag (DECISIONS "The store changes").
  const answersETag = op.successStatus !== 204 && (op.conditional || op.output.meta()?.id === 'Pet');
  return {
    description: DESCRIPTIONS[op.successStatus],
    headers: {
      ...commonHeaders(),
      ...(answersETag ? headerRefs('ETag') : {}),
      ...(pagesByCursor(op) ? nextLinkHeader() : {}),
      ...(op.deprecation ? deprecationHeaders(op.deprecation, baseUrl) : {}),
      ...(op.writes ? headerRefs('Idempotent-Replayed') : {}),
      ...corsHeaders(),
    },
    ...(op.successStatus === 204 ? {} : { content: { 'application/json': { schema: op.output } } }),
  };
}

/** The 304 of a conditional read whose `If-None-Match` matched: no body, the ETag and the rate-limit headers. */
function notModifiedResponse(op: OperationDefinition, baseUrl: string) {
  return {
    description: 'Not modified: `If-None-Match` matched the current `ETag`. No body; counted against no window.',
    headers: {
      ...commonHeaders(),
      ...headerRefs('ETag'),
      ...(op.deprecation ? deprecationHeaders(op.deprecation, baseUrl) : {}),
      ...corsHeaders(),
    },
  };
}

/**
 * Every response of an operation: its success status, one response per error status it can answer with, and
 * `internal_error` as `default`. `baseUrl` is the production base, for the successor `Link` of a deprecation.
 * @example responses(operations.createPet, 'https://api.petstore.dev/v1')['201'].description // 'Created.'
 */
export function responses(op: OperationDefinition, baseUrl: string): ZodOpenApiResponsesObject {
  const all: ZodOpenApiResponsesObject = { [String(op.successStatus) as '200']: successResponse(op, baseUrl) };
  if (op.conditional && !op.writes) all['304'] = notModifiedResponse(op, baseUrl);
  for (const [status, codes] of byStatus(errorCodesOf(op))) {
    all[status === 500 ? 'default' : (String(status) as '400')] = {
      description: errorDescription(codes),
      headers: {
        ...commonHeaders(),
        ...(status === 412 ? headerRefs('ETag') : {}),
        ...(status === 429 ? headerRefs('Retry-After') : {}),
        ...(status === 410 && op.deprecation ? deprecationHeaders(op.deprecation, baseUrl) : {}),
        ...corsHeaders(),
      },
      content: errorContent(codes),
    };
  }
  return all;
}
