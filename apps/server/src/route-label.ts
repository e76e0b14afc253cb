import { operations } from '@petstore/core';
import { procedurePaths } from '@petstore/trpc';

const procedures = new Set(procedurePaths);
const templates = Object.values(operations).map((op) => ({
  template: `/v1${op.path}`,
  pattern: new RegExp(`^/v1${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/**
 * The route a request matched, as a template with few values (`/v1/pets/{petId}`, `/trpc/pets.list`), for logs and
 * metrics; anything else is `unmatched`, so labels cannot be multiplied by clients.
 * @example routeLabel('/v1/pets/42?x=1') // '/v1/pets/{petId}'
 */
export function routeLabel(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0]!;
  if (path === '/healthz' || path === '/metrics' || path === '/v1/openapi.json') return path;
  if (path.startsWith('/v1/docs')) return '/v1/docs';
  if (path.startsWith('/trpc/')) {
    const names = path.slice('/trpc/'.length).split(',');
    return names.every((name) => procedures.has(name)) ? `/trpc/${names.join(',')}` : '/trpc/unmatched';
  }
  return templates.find((t) => t.pattern.test(path))?.template ?? 'unmatched';
}
