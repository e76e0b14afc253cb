import type { ServerResponse } from 'node:http';
import { responseHeaders, toPetStoreError } from '@petstore/core';

/** The media type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a serialised JSON body with its status and headers in one write; `headers` is taken over, not copied.
 * @example sendJson(res, 200, '[]', responseHeaders(outcome.meta))
 */
export function sendJson(res: ServerResponse, status: number, payload: string, headers: Record<string, string>): void {
  headers['content-type'] = JSON_CONTENT_TYPE;
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(status, headers);
  res.end(payload);
}

/**
 * Renders anything thrown as the Error body of a PetStoreError with its headers; a response already under way is destroyed.
 * @example sendError(res, error, () => baseUrl(req))
 */
export function sendError(res: ServerResponse, error: unknown, baseUrl?: () => string): void {
  const failure = toPetStoreError(error);
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const links = failure.meta.deprecation && baseUrl ? { baseUrl: baseUrl() } : undefined;
  sendJson(res, failure.status, JSON.stringify(failure.toBody()), responseHeaders(failure.meta, links));
}

/**
 * Sends a fixed resource (a document, a page, an asset) with its media type; no rate-limit headers.
 * @example sendResource(res, 'text/css; charset=utf-8', css, { 'cache-control': 'public, max-age=3600' })
 */
export function sendResource(
  res: ServerResponse,
  contentType: string,
  body: Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(200, {
    ...headers,
    'content-type': contentType,
    'content-length': String(body.length),
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}
