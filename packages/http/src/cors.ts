import type { StandardRequest, StandardResponse } from './standard.js';

/**
 * Origins allowed to call from a browser (`PETSTORE_CORS_ORIGINS`): `*` for any (the default), a list of origins
 * (`https://app.example.com`), or `false` for none.
 * @example const cors: CorsOrigins = ['https://app.example.com']
 */
export type CorsOrigins = '*' | false | readonly string[];

/** The request headers a browser may send: the key, the body's type, idempotency, conditions and the request id. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id';
/** The response headers a client reads (DECISIONS "Browsers (CORS)"). */
export const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'Link',
  'Location',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'ETag',
].join(', ');
const MAX_AGE = '7200';

/** CORS as DECISIONS "Browsers (CORS)" says: preflights answered, and the headers every answer carries. */
export interface Cors {
  /** Whether a request is a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`). */
  isPreflight(request: StandardRequest): boolean;
  /** The 204 answer to a preflight on a path that allows `methods` (without CORS headers for a disallowed origin). */
  preflight(request: StandardRequest, methods: string): StandardResponse;
  /** Adds `Access-Control-Allow-Origin`, `-Expose-Headers` and `Vary: Origin` to an answer, as the origin allows. */
  decorate(request: StandardRequest, headers: Record<string, string>): void;
}

function addVary(headers: Record<string, string>, name: string) {
  const vary = headers['vary'];
  if (vary === undefined) headers['vary'] = name;
  else if (!vary.split(',').some((each) => each.trim().toLowerCase() === name.toLowerCase())) headers['vary'] = `${vary}, ${name}`;
}

/**
 * Builds the CORS step from the allowed origins. With `*` the answer does not depend on the origin (no `Vary`);
 * with a list it does, so every answer says `Vary: Origin`.
 * @example const cors = createCors(['https://app.example.com']); cors.decorate(request, headers)
 */
export function createCors(origins: CorsOrigins = '*'): Cors {
  const anyOrigin = origins === '*';
  const allowed = new Set(Array.isArray(origins) ? origins.map((origin) => origin.toLowerCase().replace(/\/+$/, '')) : []);
  const allowedOrigin = (request: StandardRequest): string | undefined => {
    if (origins === false) return undefined;
    const origin = request.header('origin');
    if (origin === undefined) return undefined;
    if (anyOrigin) return '*';
    return allowed.has(origin.toLowerCase()) ? origin : undefined;
  };
  const decorate = (request: StandardRequest, headers: Record<string, string>) => {
    if (origins === false) return;
    if (!anyOrigin) addVary(headers, 'Origin');
    const origin = allowedOrigin(request);
    if (origin === undefined) return;
    headers['access-control-allow-origin'] = origin;
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  };
  return {
    isPreflight: (request) =>
      request.method === 'OPTIONS' &&
      request.header('origin') !== undefined &&
      request.header('access-control-request-method') !== undefined,
    preflight(request, methods) {
      const headers: Record<string, string> = {};
      if (origins !== false) {
        if (!anyOrigin) addVary(headers, 'Origin');
        const origin = allowedOrigin(request);
        if (origin !== undefined) {
          headers['access-control-allow-origin'] = origin;
          headers['access-control-allow-methods'] = methods;
          headers['access-control-allow-headers'] = ALLOW_HEADERS;
          headers['access-control-max-age'] = MAX_AGE;
        }
      }
      return { status: 204, headers, body: undefined };
    },
    decorate,
  };
}
