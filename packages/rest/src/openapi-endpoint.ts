import type { Endpoint } from './endpoint.js';
import { JSON_CONTENT_TYPE, sendResource } from './send.js';

/** The OpenAPI document, built and serialised on first use. */
export interface OpenApiDocumentCache {
  /** The serialised document. */
  json(): Buffer;
  /** Origins of the document's absolute `servers`, which the docs page may call. */
  serverOrigins(): readonly string[];
}

function originsOf(document: object): string[] {
  const servers = (document as { servers?: unknown }).servers;
  if (!Array.isArray(servers)) return [];
  const origins = new Set<string>();
  for (const server of servers) {
    const url = (server as { url?: unknown } | null)?.url;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
    try {
      origins.add(new URL(url).origin);
    } catch {
      // A server URL that does not parse is left out of the page's policy.
    }
  }
  return [...origins];
}

/**
 * Builds the document once, on first use; a failure is not cached, so the next request tries again.
 * @example const cache = cacheOpenApiDocument(() => createOpenApiDocument()); cache.json().length
 */
export function cacheOpenApiDocument(build: () => object): OpenApiDocumentCache {
  let cached: { json: Buffer; origins: readonly string[] } | undefined;
  const load = () => {
    if (cached) return cached;
    const document = build();
    return (cached = { json: Buffer.from(JSON.stringify(document)), origins: Object.freeze(originsOf(document)) });
  };
  return { json: () => load().json, serverOrigins: () => load().origins };
}

/**
 * Serves the OpenAPI document; it needs no key and carries no rate-limit headers.
 * @example routes.push({ method: 'GET', path: '/openapi.json', endpoint: createOpenApiEndpoint(cache) })
 */
export function createOpenApiEndpoint(document: OpenApiDocumentCache): Endpoint {
  return (_req, res) => sendResource(res, JSON_CONTENT_TYPE, document.json(), { 'cache-control': 'no-cache' });
}
