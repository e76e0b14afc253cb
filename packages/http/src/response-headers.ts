import type { ResponseMeta } from '@petstore/core';

/** Where a response's links point: the absolute REST base (ending in `/v1`) and the next page, if any. */
export interface Links {
  baseUrl?: string;
  nextUrl?: string;
}

/**
 * The headers SPEC and DECISIONS attach to a response, from what the core reported: the rate-limit fields of the
 * binding window (and the IETF `RateLimit-Policy`/`RateLimit`), `Retry-After`, `Deprecation`, `Sunset`, `Link`
 * (next page, successor), `Idempotent-Replayed` and `ETag`.
 * @example responseHeaders(outcome.meta, { baseUrl: 'https://api.example.com/v1' })
 */
export function responseHeaders(meta: ResponseMeta, links: Links = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const windows = meta.rateLimit;
  if (windows && windows[0]) {
    const binding = windows[0];
    headers['x-ratelimit-limit'] = String(binding.limit);
    headers['x-ratelimit-remaining'] = String(binding.remaining);
    headers['x-ratelimit-reset'] = String(binding.resetAt);
    let policy = '';
    let state = '';
    for (const w of windows) {
      const separator = policy === '' ? '' : ', ';
      policy += `${separator}"${w.name}";q=${w.limit};w=${w.seconds}`;
      state += `${separator}"${w.name}";r=${w.remaining};t=${w.resetIn}`;
    }
    headers['ratelimit-policy'] = policy;
    headers['ratelimit'] = state;
  }
  if (meta.retryAfter !== undefined) headers['retry-after'] = String(meta.retryAfter);
  const link: string[] = [];
  if (links.nextUrl) link.push(`<${links.nextUrl}>; rel="next"`);
  if (meta.deprecation) {
    headers['deprecation'] = `@${Math.floor(meta.deprecation.since.getTime() / 1000)}`;
    headers['sunset'] = meta.deprecation.sunset.toUTCString();
    if (links.baseUrl) link.push(`<${links.baseUrl}${meta.deprecation.successor}>; rel="successor-version"`);
  }
  if (link.length) headers['link'] = link.join(', ');
  if (meta.replayed) headers['idempotent-replayed'] = 'true';
  if (meta.etag !== undefined) headers['etag'] = meta.etag;
  return headers;
}
