import { JSON_CONTENT_TYPE, type StandardRequest } from '@petstore/http';
import type { RestResource } from '../rest-resource.js';
import { compressedAsset, serveAsset, type Asset } from '../served-asset.js';
import type { OpenApiServers } from './document-types.js';

/** The OpenAPI document for a request, built, serialised and compressed on first use for each set of servers. */
export interface OpenApiDocumentCache {
  /** The serialised document, with its gzip and brotli forms and its ETag. */
  asset(req: StandardRequest): Asset;
  /** Origins of the document's absolute `servers`, which the docs page may call. */
  serverOrigins(req: StandardRequest): readonly string[];
}

/**
 * How many sets of servers keep a built document: one when configured, one per local address in development, one per
 * set of verified custom domains (the oldest is dropped first).
 */
const MAX_CACHED = 8;

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

/** `http://[::ffff:127.0.0.1]:8080/v1` → `http://127.0.0.1:8080/v1`: an IPv4 client reached a dual-stack socket. */
const unmapped = (url: string) => url.replace(/^(https?:\/\/)\[::ffff:(\d{1,3}(?:\.\d{1,3}){3})\]/i, '$1$2');

/**
 * The servers as the document lists them: an IPv4 address as IPv4 (not IPv4-mapped IPv6), and staging only when it is
 * a server of its own (an unconfigured staging address falls back to production's, which is not a second server).
 */
function listed(servers: OpenApiServers): OpenApiServers {
  const production = unmapped(servers.production);
  const staging = servers.staging === undefined ? undefined : unmapped(servers.staging);
  const trim = (url: string) => url.replace(/\/+$/, '');
  return {
    production,
    ...(staging !== undefined && trim(staging) !== trim(production) ? { staging } : {}),
    ...(servers.custom ? { custom: servers.custom } : {}),
  };
}

/**
 * Builds the document once per set of servers, on first use. The servers come from configuration (or, in
 * development, the address the server listens on), never from a request's `Host`, so no client can make the service
 * build documents. A failure is not cached, so the next request tries again.
 * @example const cache = cacheOpenApiDocument(createOpenApiDocument, (request) => edge.servers(request, '/v1')); cache.json(request)
 */
export function cacheOpenApiDocument(
  build: (options: { servers: OpenApiServers }) => object,
  serversOf: (req: StandardRequest) => OpenApiServers,
): OpenApiDocumentCache {
  const cached = new Map<string, { asset: Asset; origins: readonly string[] }>();
  const load = (req: StandardRequest) => {
    const servers = listed(serversOf(req));
    const key = `${servers.production} ${servers.staging ?? ''} ${(servers.custom ?? []).join(' ')}`;
    let entry = cached.get(key);
    if (!entry) {
      const document = build({ servers });
      entry = { asset: compressedAsset(Buffer.from(JSON.stringify(document))), origins: Object.freeze(originsOf(document)) };
      if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value!);
      cached.set(key, entry);
    }
    return entry;
  };
  return { asset: (req) => load(req).asset, serverOrigins: (req) => load(req).origins };
}

/**
 * Serves the OpenAPI document, compressed when the client takes it, with an ETag (`If-None-Match` gets 304); it needs
 * no key, and is counted as the route mounting it says (`metered`).
 * @example routes.push({ method: 'GET', path: '/openapi.json', endpoint: metered(openApiResource(cache), meter) })
 */
export function openApiResource(document: OpenApiDocumentCache): RestResource {
  return (request) => serveAsset(request, document.asset(request), JSON_CONTENT_TYPE, 'no-cache');
}
