import { toPetStoreError } from '@petstore/core';
import { responseHeaders, type Links } from './response-headers.js';
import type { StandardResponse } from './standard.js';

/** The media type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON response; `headers` is taken over, not copied.
 * @example jsonResponse(200, '[]', responseHeaders(outcome.meta))
 */
export function jsonResponse(status: number, payload: string, headers: Record<string, string> = {}): StandardResponse {
  headers['content-type'] = JSON_CONTENT_TYPE;
  return { status, headers, body: payload };
}

/**
 * Anything thrown as the REST Error body (exactly `code`, `message`, `status`, and `details` for validation
 * failures) with the headers of its meta; anything unexpected is a 500 that reveals nothing. `links` gives the base
 * for a deprecated operation's successor link.
 * @example errorResponse(new PetStoreError('not_found'))
 */
export function errorResponse(error: unknown, links?: Links): StandardResponse {
  const failure = toPetStoreError(error);
  return jsonResponse(failure.status, JSON.stringify(failure.toBody()), responseHeaders(failure.meta, links));
}

/**
 * A fixed resource (a document, a page, an asset) with its media type; no rate-limit headers.
 * @example resourceResponse('text/css; charset=utf-8', css, { 'cache-control': 'public, max-age=3600' })
 */
export function resourceResponse(contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): StandardResponse {
  return { status: 200, headers: { ...headers, 'content-type': contentType, 'x-content-type-options': 'nosniff' }, body };
}
