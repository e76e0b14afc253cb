import type { IncomingMessage } from 'node:http';
import { splitTarget } from './request-target.js';

/**
 * The path a framework mounted a handler under: what `req.originalUrl` (Express) has in front of `req.url`.
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
