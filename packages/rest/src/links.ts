import { stringify, type ParsedUrlQuery } from 'node:querystring';

/**
 * The absolute URL of the next page: the request's query parameters, re-encoded, with `cursor` replaced.
 * @example nextPageUrl('http://h/v1', '/pets', { limit: '5', cursor: 'a' }, 'b') // 'http://h/v1/pets?limit=5&cursor=b'
 */
export function nextPageUrl(baseUrl: string, path: string, query: ParsedUrlQuery, cursor: string): string {
  return `${baseUrl}${path}?${stringify({ ...query, cursor })}`;
}
