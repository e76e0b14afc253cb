/**
 * What every answer of the surface carries, on top of its own headers (DECISIONS "Hostile clients and overload"):
 * `nosniff`, so no browser reads a JSON answer as a page or a script, and `Cache-Control: no-store`, so no shared
 * cache keeps an answer made for one key and serves it to another. A resource that sets its own `Cache-Control`
 * (the OpenAPI document's `no-cache`, the docs page's assets) keeps it: those answers are the same for everyone.
 * @example res.writeHead(503, { ...ANSWER_HEADERS, 'content-type': JSON_CONTENT_TYPE })
 */
export const ANSWER_HEADERS = Object.freeze({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });

/**
 * Adds {@link ANSWER_HEADERS} to a response's headers, keeping a `Cache-Control` the response set itself.
 * @example withAnswerHeaders(response.headers)
 */
export function withAnswerHeaders(headers: Record<string, string>): Record<string, string> {
  headers['cache-control'] ??= ANSWER_HEADERS['cache-control'];
  headers['x-content-type-options'] = ANSWER_HEADERS['x-content-type-options'];
  return headers;
}
