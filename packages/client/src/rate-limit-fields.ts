/** One window of the `RateLimit` field (`"minute";r=0;t=42`), with its quota from `RateLimit-Policy` when given. */
export interface RateLimitWindow {
  /** The window's name: `minute`, `day`. */
  name: string;
  /** Requests left in it. */
  remaining: number;
  /** Seconds until it resets. */
  resetIn: number;
  /** Requests it allows (`q=` of `RateLimit-Policy`). */
  limit?: number | undefined;
}

/** The rate-limit fields of one answer. */
export interface RateLimitFields {
  /** `X-RateLimit-Limit`: the limit of the window that binds first. */
  limit: number | undefined;
  /** `X-RateLimit-Remaining`: requests left in it. */
  remaining: number | undefined;
  /** `X-RateLimit-Reset`: when it resets. */
  reset: Date | undefined;
  /** Every window of `RateLimit` (IETF), with its limit from `RateLimit-Policy`. */
  windows: RateLimitWindow[];
  /** The answer's HTTP status. */
  status: number;
}

/** Told the rate-limit fields of each answer that carries them, refusals included. */
export type RateLimitHandler = (fields: RateLimitFields) => void;

const NAME = /^\s*"([^"]*)"/;
const param = (item: string, name: string) => {
  const value = new RegExp(`;\\s*${name}=(\\d+)`).exec(item)?.[1];
  return value === undefined ? undefined : Number(value);
};

/**
 * The `RateLimit` field's windows (`"minute";r=0;t=42, "day";r=9999;t=50000`), with the limits a `RateLimit-Policy`
 * field gives them.
 * @example windowsOf('"minute";r=0;t=42') // [{ name: 'minute', remaining: 0, resetIn: 42, limit: undefined }]
 */
export function windowsOf(field: string, policy = ''): RateLimitWindow[] {
  const limits = new Map(policy.split(',').map((item) => [NAME.exec(item)?.[1], param(item, 'q')]));
  return field.split(',').flatMap((item) => {
    const remaining = param(item, 'r');
    const resetIn = param(item, 't');
    if (remaining === undefined || resetIn === undefined) return [];
    const name = NAME.exec(item)?.[1] ?? '';
    return [{ name, remaining, resetIn, limit: limits.get(name) }];
  });
}

const numberOf = (value: string | null) => (value !== null && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined);

/**
 * An answer's rate-limit fields, or undefined when it carries none.
 * @example rateLimitOf(response.status, response.headers)?.remaining
 */
export function rateLimitOf(status: number, headers: Headers): RateLimitFields | undefined {
  const field = headers.get('ratelimit');
  const limit = numberOf(headers.get('x-ratelimit-limit'));
  const remaining = numberOf(headers.get('x-ratelimit-remaining'));
  const reset = numberOf(headers.get('x-ratelimit-reset'));
  if (field === null && limit === undefined && remaining === undefined) return undefined;
  return {
    limit,
    remaining,
    reset: reset === undefined ? undefined : new Date(reset * 1000),
    windows: field === null ? [] : windowsOf(field, headers.get('ratelimit-policy') ?? ''),
    status,
  };
}

/**
 * Tells a handler an answer's rate-limit fields, if it carries any.
 * @example tell(options.onRateLimit, response.status, response.headers)
 */
export function tell(handler: RateLimitHandler, status: number, headers: Headers): void {
  const fields = rateLimitOf(status, headers);
  if (fields) handler(fields);
}
