import type { IncomingMessage } from 'node:http';
import { stringify, type ParsedUrlQuery } from 'node:querystring';
import type { TLSSocket } from 'node:tls';
import { splitTarget } from './request-target.js';

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The path a framework mounted the handler under: what `req.originalUrl` (Express) has in front of `req.url`.
 * @example mountPrefix({ originalUrl: '/petstore/v1/pets', url: '/v1/pets' }) // '/petstore'
 */
export function mountPrefix(req: Pick<IncomingMessage, 'url'> & { originalUrl?: unknown }): string {
  const original = req.originalUrl;
  if (typeof original !== 'string' || original === req.url) return '';
  const outer = splitTarget(original).path;
  const inner = splitTarget(req.url).path;
  if (inner === '/' && outer.length > 1) return outer.endsWith('/') ? outer.slice(0, -1) : outer;
  return outer.length > inner.length && outer.endsWith(inner) ? outer.slice(0, outer.length - inner.length) : '';
}

/**
 * The default absolute base address of a request: scheme, the Host header (when well-formed), the mount and the base path.
 * @example defaultBaseUrl(req, '/v1') // 'http://127.0.0.1:3000/v1'
 */
export function defaultBaseUrl(req: IncomingMessage, basePath: string): string {
  const scheme = (req.socket as Partial<TLSSocket> | null)?.encrypted ? 'https' : 'http';
  const header = req.headers.host;
  const host = header !== undefined && HOST.test(header) ? header : 'localhost';
  return `${scheme}://${host}${mountPrefix(req)}${basePath}`;
}

/**
 * The absolute URL of the next page: the request's query parameters, re-encoded, with `cursor` replaced.
 * @example nextPageUrl('http://h/v1', '/pets', { limit: '5', cursor: 'a' }, 'b') // 'http://h/v1/pets?limit=5&cursor=b'
 */
export function nextPageUrl(baseUrl: string, path: string, query: ParsedUrlQuery, cursor: string): string {
  return `${baseUrl}${path}?${stringify({ ...query, cursor })}`;
}
