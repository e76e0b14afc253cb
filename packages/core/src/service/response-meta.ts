import type { Deprecation } from '../operations/operations.js';

/** One quota window as it stands after a request. */
export interface RateLimitWindow {
  /** Requests the window allows. */
  limit: number;
  /** Requests left in the window. */
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  /** Seconds from the request until the window resets. */
  resetIn: number;
  /** Length of the window in seconds (60, or 86400 for the day). */
  seconds: number;
  /** Name of the window in the `RateLimit-Policy` field. */
  name: 'minute' | 'day' | 'address';
}

/** What a response carries besides its body. Adapters turn it into headers with {@link responseHeaders}. */
export interface ResponseMeta {
  /** The windows that counted this request; the first is the one that binds. */
  rateLimit?: RateLimitWindow[];
  /** Seconds a refused client waits before retrying. */
  retryAfter?: number;
  /** Cursor of the next page of a list, when more results exist. */
  nextCursor?: string;
  deprecation?: Deprecation;
  /** True when an idempotent replay answered with the first response. */
  replayed?: boolean;
}

/**
 * The headers SPEC and DECISIONS attach to a response, from its meta. `baseUrl` is the absolute base address
 * (ending in `/v1`) used for links; `nextUrl` the absolute URL of the next page, if any.
 * @example responseHeaders(meta, { baseUrl: 'https://api.example.com/v1' })
 */
export function responseHeaders(meta: ResponseMeta, links: { baseUrl?: string; nextUrl?: string } = {}) {
  const headers: Record<string, string> = {};
  const windows = meta.rateLimit;
  if (windows && windows[0]) {
    const binding = windows[0];
    headers['x-ratelimit-limit'] = String(binding.limit);
    headers['x-ratelimit-remaining'] = String(binding.remaining);
    headers['x-ratelimit-reset'] = String(binding.resetAt);
    headers['ratelimit-policy'] = windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ');
    headers['ratelimit'] = windows
      .map((w) => `"${w.name}";r=${w.remaining};t=${w.resetIn}`)
      .join(', ');
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
  return headers;
}
