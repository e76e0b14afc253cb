import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resourceResponse } from '@petstore/http';
import type { OpenApiDocumentCache } from './openapi/openapi-endpoint.js';
import type { RestResource } from './rest-resource.js';
import type { RouteDefinition } from './router.js';
import { etagOf, metered, serveAsset, type Asset, type ResourceMeter } from './served-asset.js';

/** Redoc's standalone bundle, copied into dist/docs-assets at build time (scripts/copy-docs-assets.mjs). */
const ASSETS_DIR = new URL('../dist/docs-assets/', import.meta.url);
const BUNDLE = 'redoc.standalone.js';
const LICENSE = 'redoc.standalone.js.LICENSE.txt';
const JAVASCRIPT = 'text/javascript; charset=utf-8';
/** Under its plain name the bundle may change with the next release: a day, then revalidated by its ETag. */
const ASSET_CACHE = 'public, max-age=86400';
/** Under its content-hashed name it never changes: a year, never revalidated. */
const HASHED_CACHE = 'public, max-age=31536000, immutable';
/** The one remote address in the bundle: the attribution logo. Served as an empty image instead, so the page phones nowhere. */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

const readIfThere = (file: string) => readFile(new URL(file, ASSETS_DIR)).catch(() => undefined);

async function loadAsset(file: string): Promise<Asset> {
  const identity = Buffer.from((await readFile(new URL(file, ASSETS_DIR), 'utf8')).replaceAll(REMOTE_LOGO, EMPTY_IMAGE));
  const [gzip, br] = await Promise.all([readIfThere(`${file}.gz`), readIfThere(`${file}.br`)]);
  return { identity, gzip, br, etag: etagOf(identity) };
}

/** The bundle's content hash, from the manifest the build writes; undefined before a build that writes one. */
function bundleHash(): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(new URL('manifest.json', ASSETS_DIR), 'utf8')) as Record<string, { hash?: unknown }>;
    const hash = manifest[BUNDLE]?.hash;
    return typeof hash === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(hash) ? hash : undefined;
  } catch {
    return undefined;
  }
}

const page = (bundle: string) =>
  Buffer.from(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="${bundle}"></script>
<script src="docs.js"></script>
</body>
</html>
`);

const INIT = Buffer.from(`Redoc.init(
  new URL('../openapi.json', document.baseURI).href,
  { expandResponses: '200,201', hideDownloadButton: false, requiredPropsFirst: true, sortPropsAlphabetically: false },
  document.getElementById('redoc'),
);
`);

function contentSecurityPolicy(connect: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * The routes of the human docs (`/docs/`, rendered by Redoc from this package's own files), relative to the base path.
 * Every one is counted with `meter` (as requests without a key are: one address cannot pull the 940 KB bundle at
 * will); the bundle is sent compressed, with an ETag, and under its content-hashed name (the one the page loads)
 * cached as immutable.
 * @example createRouter([...operationRoutes, ...docsRoutes(cache, (ctx) => store.meter(ctx))])
 */
export function docsRoutes(document: OpenApiDocumentCache, meter?: ResourceMeter): RouteDefinition<RestResource>[] {
  const hash = bundleHash();
  const hashedName = hash === undefined ? undefined : `redoc.standalone.${hash}.js`;
  const PAGE = page(hashedName ?? BUNDLE);
  const loaded = new Map<string, Promise<Asset>>();
  const asset = (file: string) => {
    let pending = loaded.get(file);
    if (!pending) {
      pending = loadAsset(file);
      // A failure is not kept: the next request reads again.
      pending.catch(() => loaded.delete(file));
      loaded.set(file, pending);
    }
    return pending;
  };
  const pageEndpoint: RestResource = (request) =>
    resourceResponse('text/html; charset=utf-8', PAGE, {
      'cache-control': 'no-cache',
      'content-security-policy': contentSecurityPolicy(document.serverOrigins(request)),
      'referrer-policy': 'no-referrer',
    });
  const redirect: RestResource = () => ({ status: 301, headers: { location: 'docs/' }, body: undefined });
  const init: RestResource = () => resourceResponse(JAVASCRIPT, INIT, { 'cache-control': 'no-cache' });
  const file =
    (name: string, contentType: string, cacheControl: string): RestResource =>
    async (request) =>
      serveAsset(request, await asset(name), contentType, cacheControl);
  const routes: RouteDefinition<RestResource>[] = [
    { method: 'GET', path: '/docs', endpoint: redirect },
    { method: 'GET', path: '/docs/', endpoint: pageEndpoint },
    { method: 'GET', path: '/docs/docs.js', endpoint: init },
    { method: 'GET', path: `/docs/${BUNDLE}`, endpoint: file(BUNDLE, JAVASCRIPT, ASSET_CACHE) },
    { method: 'GET', path: `/docs/${LICENSE}`, endpoint: file(LICENSE, 'text/plain; charset=utf-8', ASSET_CACHE) },
    ...(hashedName === undefined ? [] : [{ method: 'GET', path: `/docs/${hashedName}`, endpoint: file(BUNDLE, JAVASCRIPT, HASHED_CACHE) }]),
  ];
  return routes.map((route) => ({ ...route, endpoint: metered(route.endpoint, meter) }));
}
