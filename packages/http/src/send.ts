import type { ServerResponse } from 'node:http';
import { toPetStoreError } from '@petstore/core';
import { contextOf, type RequestContext } from './request-context.js';
import { responseHeaders } from './response-headers.js';
import { isAnswered, writeAtTurnEnd } from './write-at-turn-end.js';

/** The media type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Adds the request's `X-Request-Id` to the headers of its response, when the edge built its context. */
function withRequestId(res: ServerResponse, headers: Record<string, string>): Record<string, string> {
  const id = contextOf(res.req)?.requestId;
  if (id !== undefined) headers['x-request-id'] = id;
  return headers;
}

/**
 * Sends a serialised JSON body with its status and headers (and the request id) in one write at the end of the
 * event-loop turn (see write-at-turn-end.ts); `headers` is taken over, not copied. A response already answered is
 * destroyed instead.
 * @example sendJson(res, 200, '[]', responseHeaders(outcome.meta))
 */
export function sendJson(res: ServerResponse, status: number, payload: string, headers: Record<string, string> = {}): void {
  if (isAnswered(res) || res.destroyed) {
    res.destroy();
    return;
  }
  headers['content-type'] = JSON_CONTENT_TYPE;
  headers['content-length'] = String(Buffer.byteLength(payload));
  writeAtTurnEnd(res, status, withRequestId(res, headers), payload);
}

/**
 * Renders anything thrown as the REST Error body (exactly `code`, `message`, `status`, and `details` for
 * validation failures) with the headers of its meta; anything unexpected is a 500 that reveals nothing.
 * @example sendError(res, ctx, error, '/v1')
 */
export function sendError(res: ServerResponse, ctx: RequestContext, error: unknown, basePath = '/v1'): void {
  const failure = toPetStoreError(error);
  const links = failure.meta.deprecation ? { baseUrl: ctx.linkBase(basePath) } : undefined;
  sendJson(res, failure.status, JSON.stringify(failure.toBody()), responseHeaders(failure.meta, links));
}

/**
 * Sends a fixed resource (a document, a page, an asset) with its media type, like {@link sendJson}; no rate-limit
 * headers.
 * @example sendResource(res, 'text/css; charset=utf-8', css, { 'cache-control': 'public, max-age=3600' })
 */
export function sendResource(
  res: ServerResponse,
  contentType: string,
  body: Buffer,
  headers: Record<string, string> = {},
): void {
  const all = { ...headers, 'content-type': contentType, 'content-length': String(body.length), 'x-content-type-options': 'nosniff' };
  writeAtTurnEnd(res, 200, withRequestId(res, all), body);
}
