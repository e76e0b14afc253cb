import { linkOf } from './link-header.js';
import type { Route } from './operations.js';

/** What an answer said about its operation's deprecation (`Deprecation`, `Sunset`, `Link: rel="successor-version"`). */
export interface DeprecationNotice {
  operationId: string;
  method: string;
  path: string;
  /** When the deprecation was announced (`Deprecation`, RFC 9745). */
  deprecatedSince: Date | undefined;
  /** When the operation stops answering (`Sunset`, RFC 8594). */
  sunset: Date | undefined;
  /** The replacement's address (`Link` with `rel="successor-version"`). */
  successor: string | undefined;
}

/** Told once per operation and client that the service answered it as deprecated. */
export type DeprecationHandler = (notice: DeprecationNotice) => void;

const dateOf = (value: string | null): Date | undefined => {
  if (!value) return undefined;
  const at = /^@(-?\d+)$/.exec(value.trim());
  const date = at ? new Date(Number(at[1]) * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/**
 * The deprecation an answer announces, or undefined when it announces none.
 * @example const notice = deprecationNotice(operations.getPet, response.headers)
 */
export function deprecationNotice(route: Route, headers: Headers): DeprecationNotice | undefined {
  const deprecation = headers.get('deprecation');
  const sunset = headers.get('sunset');
  if (!deprecation && !sunset) return undefined;
  return {
    operationId: route.operationId,
    method: route.method,
    path: route.path,
    deprecatedSince: dateOf(deprecation),
    sunset: dateOf(sunset),
    successor: linkOf(headers.get('link'), 'successor-version'),
  };
}

/** A console warning, the default outside production (`NODE_ENV` is not `production`). */
export const warnOfDeprecation: DeprecationHandler = (notice) => {
  const sunset = notice.sunset ? `; it stops answering on ${notice.sunset.toUTCString()}` : '';
  const successor = notice.successor ? `. Use ${notice.successor} instead` : '';
  console.warn(`@petstore/client: ${notice.operationId} (${notice.method} ${notice.path}) is deprecated${sunset}${successor}.`);
};

/** Whether the code runs in production by the `NODE_ENV` convention (read where a `process` exists, else false). */
export const inProduction = (): boolean =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NODE_ENV === 'production';
