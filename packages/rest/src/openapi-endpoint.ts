import type { IncomingMessage } from 'node:http';
import type { Endpoint } from './endpoint.js';
import { JSON_CONTENT_TYPE, sendResource } from './send.js';

/** The OpenAPI document for a request, built and serialised on first use for each base address. */
export interface OpenApiDocumentCache {
  /** The serialised document. */
  json(req: IncomingMessage): Buffer;
  /** Origins of the document's absolute `servers`, which the docs page may call. */
  serverOrigins(req: IncomingMessage): readonly string[];
}

/** How many base addresses (domains a deployment answers on) keep a built document. */
const MAX_CACHED = 32;

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
 * Builds the document once per base address (a request's own address, so `servers` can follow the domain it was
 * asked on), on first use; a failure is not cached, so the next request tries again.
 * @example const cache = cacheOpenApiDocument((baseUrl) => createOpenApiDocument(baseUrl), baseUrlOf); cache.json(req)
 */
export function cacheOpenApiDocument(
  build: (baseUrl: string) => object,
  baseUrlOf: (req: IncomingMessage) => string,
): OpenApiDocumentCache {
  const cached = new Map<string, { json: Buffer; origins: readonly string[] }>();
  const load = (req: IncomingMessage) => {
    const baseUrl = baseUrlOf(req);
    let entry = cached.get(baseUrl);
    if (!entry) {
      const document = build(baseUrl);
      entry = { json: Buffer.from(JSON.stringify(document)), origins: Object.freeze(originsOf(document)) };
      if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value!);
      cached.set(baseUrl, entry);
    }
    return entry;
  };
  return { json: (req) => load(req).json, serverOrigins: (req) => load(req).origins };
}

/**
 * Serves the OpenAPI document; it needs no key and carries no rate-limit headers.
 * @example routes.push({ method: 'GET', path: '/openapi.json', endpoint: createOpenApiEndpoint(cache) })
 */
export function createOpenApiEndpoint(document: OpenApiDocumentCache): Endpoint {
  return (req, res) => sendResource(res, JSON_CONTENT_TYPE, document.json(req), { 'cache-control': 'no-cache' });
}
