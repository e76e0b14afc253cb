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
  /** Name of the window in the `RateLimit-Policy` field (`own`: an operation's limit of its own, `getUsage`'s). */
  name: 'minute' | 'day' | 'address' | 'own';
}

/** What an answer carries besides its body, in domain terms; the HTTP edge turns it into headers. */
export interface ResponseMeta {
  /** The windows that counted this request; the first is the one that binds. */
  rateLimit?: RateLimitWindow[];
  /** Seconds a refused client waits before retrying. */
  retryAfter?: number;
  /** Cursor of the next page of a list, when more results exist. */
  nextCursor?: string;
  deprecation?: Deprecation;
  /** The strong `ETag` of the answer: one animal's version, or a list page's body. */
  etag?: string;
  /** True when `If-None-Match` matched `etag`: REST answers 304 with no body, counted against no window. */
  notModified?: boolean;
  /** True when an idempotent replay answered with the first response. */
  replayed?: boolean;
  /** The id of the API key the request was verified as (for logs). */
  keyId?: number;
  /** The id of the principal a host named as the caller (for logs). */
  principalId?: string;
}
