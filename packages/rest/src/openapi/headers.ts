import type { Deprecation } from '@petstore/core';
import type { Header } from './openapi-types.js';

/** The largest integer JSON clients read exactly: enterprise limits may go up to it. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;
/** The longest wait the core's quota asks for: a ban of at most 7 days (createQuota's `banSeconds` bound). */
const MAX_RETRY_AFTER = 7 * 86_400;
/**
 * The longest URL a `Link` can carry: the request line is at most 16 KiB (Node's default `maxHeaderSize`) and
 * re-encoding its query at most triples it, under 64 KiB with the base address.
 */
const MAX_LINK = 65_536;
/** HTTP tokens separated by commas, as `Vary` and `Access-Control-Expose-Headers` list header names. */
const TOKEN_LIST = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+( *, *[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$";

const integer = (description: string, format: 'int32' | 'int64', minimum: number, maximum: number): Header => ({
  description,
  schema: { type: 'integer', minimum, format, maximum },
});

const link = (description: string, rel: string, example: string): Header => ({
  description,
  schema: { type: 'string', examples: [example], maxLength: MAX_LINK, pattern: `^<[^>]+>; rel="${rel}"$` },
});

/** The headers shared by many responses, by name. */
type HeaderName =
  | 'X-RateLimit-Limit'
  | 'X-RateLimit-Remaining'
  | 'X-RateLimit-Reset'
  | 'X-Request-Id'
  | 'Retry-After'
  | 'Idempotent-Replayed'
  | 'ETag'
  | 'Access-Control-Allow-Origin'
  | 'Access-Control-Expose-Headers'
  | 'Vary';

/**
 * The headers shared by many responses, as `components.headers`, each with bounds (the OWASP API Security ruleset
 * asks for them so that a client can size what it reads).
 * @example doc.components.headers = { ...headerComponents }
 */
export const headerComponents: Record<HeaderName, Header> = {
  'X-RateLimit-Limit': integer(
    'The limit in force: requests allowed in the window that binds first.',
    'int64',
    0,
    MAX_COUNT,
  ),
  'X-RateLimit-Remaining': integer('Requests left in that window.', 'int64', 0, MAX_COUNT),
  'X-RateLimit-Reset': integer('Unix timestamp (seconds) at which that window resets.', 'int64', 0, MAX_COUNT),
  'X-Request-Id': {
    description: 'The request identifier: echoed when the client sends one, generated otherwise.',
    // The edge echoes a sent id of 1 to 128 visible ASCII characters and generates a UUID for any other.
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[!-~]+$' },
  },
  'Retry-After': integer('Seconds to wait before retrying.', 'int32', 1, MAX_RETRY_AFTER),
  'Idempotent-Replayed': {
    description: '`true` when the response repeats the first response to the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description:
      'A strong entity tag: of one animal at its version (on every answer carrying one animal, and on 412), or of a ' +
      'list page\'s body. Send it back as `If-None-Match` (reads) or `If-Match` (changes).',
    schema: { type: 'string', minLength: 2, maxLength: 64, pattern: '^"[!#-~]*"$', examples: ['"7.3"'] },
  },
  // CORS (DECISIONS, "Browsers (CORS)"): on every answer to an origin PETSTORE_CORS_ORIGINS allows, none otherwise.
  'Access-Control-Allow-Origin': {
    description:
      'Present when the request comes from an allowed origin (`PETSTORE_CORS_ORIGINS`): `*` when every origin is ' +
      'allowed, else the request\'s own `Origin`.',
    schema: {
      type: 'string',
      maxLength: 2048,
      pattern: '^(\\*|null|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/]+)$',
      examples: ['*', 'https://app.example.com'],
    },
  },
  'Access-Control-Expose-Headers': {
    description:
      'Present with `Access-Control-Allow-Origin`: the response headers a browser script may read, the rate-limit ' +
      'fields, `Retry-After`, `Link`, `Location`, `X-Request-Id`, `Idempotent-Replayed`, `Deprecation`, `Sunset` and `ETag`.',
    schema: { type: 'string', maxLength: 1024, pattern: TOKEN_LIST },
  },
  Vary: {
    description: 'Names `Origin` when the answer depends on the request\'s origin (a list of allowed origins, not `*`).',
    schema: { type: 'string', maxLength: 1024, pattern: TOKEN_LIST, examples: ['Origin'] },
  },
};

/**
 * References to header components, by name.
 * @example headerRefs('Retry-After') // { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
 */
export const headerRefs = (...names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * The headers of every response: the rate-limit state and the request id.
 * @example response.headers = { ...commonHeaders() }
 */
export const commonHeaders = () =>
  headerRefs('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id');

/**
 * The CORS headers every response carries when the request's origin is allowed.
 * @example response.headers = { ...commonHeaders(), ...corsHeaders() }
 */
export const corsHeaders = () => headerRefs('Access-Control-Allow-Origin', 'Access-Control-Expose-Headers', 'Vary');

/**
 * The `Link` header of a list page that has a next page.
 * @example response.headers = { ...commonHeaders(), ...nextLinkHeader() }
 */
export const nextLinkHeader = (): Record<string, Header> => ({
  Link: link(
    'Present when more results exist: the absolute URL of the next page, `rel="next"`.',
    'next',
    '<https://api.petstore.dev/v1/pets?limit=20&cursor=MjA>; rel="next"',
  ),
});

/** An RFC 9110 IMF-fixdate, the form of `Sunset`. */
const HTTP_DATE =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} ' +
  '[0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';

/**
 * The headers of a deprecated operation (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, successor `Link`).
 * @example deprecationHeaders(operations.getPet.deprecation!, 'https://api.petstore.dev/v1').Sunset
 */
export const deprecationHeaders = (deprecation: Deprecation, baseUrl: string): Record<string, Header> => ({
  Deprecation: {
    description: 'When the operation was deprecated, as an RFC 9745 date (`@` and Unix seconds).',
    schema: {
      type: 'string',
      examples: [`@${Math.floor(deprecation.since.getTime() / 1000)}`],
      maxLength: 21,
      pattern: '^@-?[0-9]+$',
    },
  },
  Sunset: {
    description: 'When the operation is removed (RFC 8594); from then on it answers 410 `gone`.',
    schema: { type: 'string', examples: [deprecation.sunset.toUTCString()], maxLength: 29, pattern: HTTP_DATE },
  },
  Link: link(
    'The replacement operation, `rel="successor-version"`.',
    'successor-version',
    `<${baseUrl}${deprecation.successor}>; rel="successor-version"`,
  ),
});
