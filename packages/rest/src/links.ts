import { escape, type ParsedUrlQuery } from 'node:querystring';

/**
 * The absolute URL of the next page: the request's query parameters, re-encoded in their order, with `cursor`
 * replaced (or added last). Written out rather than through `querystring.stringify({ ...query, cursor })`, which
 * copies the query first: this runs on every page served.
 * @example nextPageUrl('http://h/v1', '/pets', { limit: '5', cursor: 'a' }, 'b') // 'http://h/v1/pets?limit=5&cursor=b'
 */
export function nextPageUrl(baseUrl: string, path: string, query: ParsedUrlQuery, cursor: string): string {
  let search = '';
  let replaced = false;
  for (const name in query) {
    const key = escape(name);
    const value = name === 'cursor' ? ((replaced = true), cursor) : query[name];
    if (Array.isArray(value)) for (const each of value) search += `&${key}=${escape(each)}`;
    else search += `&${key}=${escape(value ?? '')}`;
  }
  if (!replaced) search += `&cursor=${escape(cursor)}`;
  return `${baseUrl}${path}?${search.slice(1)}`;
}
