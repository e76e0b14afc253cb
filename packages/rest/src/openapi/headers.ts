import type { Deprecation } from '@petstore/core';
import type { Header } from './openapi-types.js';

const integer = (description: string, minimum = 0): Header => ({ description, schema: { type: 'integer', minimum } });

/** The headers shared by many responses, by name. */
type HeaderName =
  | 'X-RateLimit-Limit'
  | 'X-RateLimit-Remaining'
  | 'X-RateLimit-Reset'
  | 'X-Request-Id'
  | 'Retry-After'
  | 'Idempotent-Replayed';

/**
 * The headers shared by many responses, as `components.headers`.
 * @example doc.components.headers = { ...headerComponents }
 */
export const headerComponents: Record<HeaderName, Header> = {
  'X-RateLimit-Limit': integer('The limit in force: requests allowed in the window that binds first.'),
  'X-RateLimit-Remaining': integer('Requests left in that window.'),
  'X-RateLimit-Reset': integer('Unix timestamp (seconds) at which that window resets.'),
  'X-Request-Id': {
    description: 'The request identifier: echoed when the client sends one, generated otherwise.',
    schema: { type: 'string' },
  },
  'Retry-After': integer('Seconds to wait before retrying.', 1),
  'Idempotent-Replayed': {
    description: '`true` when the response repeats the first response to the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
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
 * The `Link` header of a list page that has a next page.
 * @example response.headers = { ...commonHeaders(), ...nextLinkHeader() }
 */
export const nextLinkHeader = () => ({
  Link: {
    description: 'Present when more results exist: the absolute URL of the next page, `rel="next"`.',
    schema: {
      type: 'string' as const,
      examples: ['<https://api.petstore.dev/v1/pets?limit=20&cursor=MjA>; rel="next"'],
    },
  },
});

/**
 * The headers of a deprecated operation (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, successor `Link`).
 * @example deprecationHeaders(operations.getPet.deprecation!, 'https://api.petstore.dev/v1').Sunset
 */
export const deprecationHeaders = (deprecation: Deprecation, baseUrl: string) => ({
  Deprecation: {
    description: 'When the operation was deprecated, as an RFC 9745 date (`@` and Unix seconds).',
    schema: { type: 'string' as const, examples: [`@${Math.floor(deprecation.since.getTime() / 1000)}`] },
  },
  Sunset: {
    description: 'When the operation is removed (RFC 8594); from then on it answers 410 `gone`.',
    schema: { type: 'string' as const, examples: [deprecation.sunset.toUTCString()] },
  },
  Link: {
    description: 'The replacement operation, `rel="successor-version"`.',
    schema: { type: 'string' as const, examples: [`<${baseUrl}${deprecation.successor}>; rel="successor-version"`] },
  },
});
