/**
 * The URL of the first link with the relation `rel` in a `Link` field (RFC 8288), or undefined.
 * @example linkOf('<https://api.example.com/v1/pets?cursor=x>; rel="next"', 'next') // 'https://api.example.com/v1/pets?cursor=x'
 */
export function linkOf(field: string | null, rel: string): string | undefined {
  if (!field) return undefined;
  for (const [, url, params] of field.matchAll(/<([^>]*)>([^<]*)/g)) {
    const relation = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params!);
    const names = (relation?.[1] ?? relation?.[2] ?? '').toLowerCase().split(/\s+/);
    if (names.includes(rel)) return url;
  }
  return undefined;
}
