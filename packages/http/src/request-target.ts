/** The path and the raw query (without `?`, empty when absent) of a request target. */
export interface RequestTarget {
  readonly path: string;
  readonly query: string;
}

/**
 * Splits `req.url` into path and raw query without building a URL object; absolute-form targets are reduced to their path.
 * @example splitTarget('/v1/pets?limit=5') // { path: '/v1/pets', query: 'limit=5' }
 */
export function splitTarget(url: string | undefined): RequestTarget {
  let target = url ?? '/';
  if (target.charCodeAt(0) !== 47 /* '/' */) {
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      return { path: target, query: '' };
    }
  }
  const mark = target.indexOf('?');
  return mark === -1 ? { path: target, query: '' } : { path: target.slice(0, mark), query: target.slice(mark + 1) };
}
