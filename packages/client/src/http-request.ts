import type { Route } from './operations.js';

/** A request ready for fetch, but for the headers every call adds. */
export interface PreparedRequest {
  url: string;
  method: string;
  body: string | undefined;
}

const READS_QUERY = new Set(['GET', 'DELETE']);

/**
 * The request of an operation for an input, as the service reads it: `{placeholders}` of the path from the input's
 * fields, the other fields in the query string (GET, DELETE) or as the JSON body.
 * @example prepareRequest('https://api.example.com/v1', operations.getPet, { petId: 7 }).url // '…/v1/pets/7'
 */
export function prepareRequest(baseUrl: string, route: Route, input: object | undefined): PreparedRequest {
  const rest: Record<string, unknown> = { ...input };
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const url = `${baseUrl}${path}`;
  if (!READS_QUERY.has(route.method)) return { url, method: route.method, body: JSON.stringify(rest) };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) query.set(name, String(value));
  const search = query.toString();
  return { url: search ? `${url}?${search}` : url, method: route.method, body: undefined };
}
