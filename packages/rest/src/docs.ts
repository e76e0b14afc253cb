import { readFile } from 'node:fs/promises';
import { resourceResponse } from '@petstore/http';
import type { OpenApiDocumentCache } from './openapi/openapi-endpoint.js';
import type { RestResource } from './rest-resource.js';
import type { RouteDefinition } from './router.js';

/** Redoc's standalone bundle, copied into dist/docs-assets at build time (scripts/copy-docs-assets.mjs). */
const ASSETS_DIR = new URL('../dist/docs-assets/', import.meta.url);
const ASSETS: Readonly<Record<string, string>> = {
  'redoc.standalone.js': 'text/javascript; charset=utf-8',
  'redoc.standalone.js.LICENSE.txt': 'text/plain; charset=utf-8',
};
const ASSET_CACHE = 'public, max-age=86400';
/** The one remote address in the bundle: the attribution logo. Served as an empty image instead, so the page phones nowhere. */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

const PAGE = Buffer.from(`<!DOCTYPE html>
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
<script src="redoc.standalone.js"></script>
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

function assetEndpoint(file: string, contentType: string): RestResource {
  let body: Buffer | undefined;
  return async () => {
    body ??= Buffer.from((await readFile(new URL(file, ASSETS_DIR), 'utf8')).replaceAll(REMOTE_LOGO, EMPTY_IMAGE));
    return resourceResponse(contentType, body, { 'cache-control': ASSET_CACHE });
  };
}

/**
 * The routes of the human docs (`/docs/`, rendered by Redoc from this package's own files), relative to the base path.
 * @example createRouter([...operationRoutes, ...docsRoutes(cache)])
 */
export function docsRoutes(document: OpenApiDocumentCache): RouteDefinition<RestResource>[] {
  const page: RestResource = (request) =>
    resourceResponse('text/html; charset=utf-8', PAGE, {
      'cache-control': 'no-cache',
      'content-security-policy': contentSecurityPolicy(document.serverOrigins(request)),
      'referrer-policy': 'no-referrer',
    });
  const redirect: RestResource = () => ({ status: 301, headers: { location: 'docs/' }, body: undefined });
  const init: RestResource = () => resourceResponse('text/javascript; charset=utf-8', INIT, { 'cache-control': 'no-cache' });
  return [
    { method: 'GET', path: '/docs', endpoint: redirect },
    { method: 'GET', path: '/docs/', endpoint: page },
    { method: 'GET', path: '/docs/docs.js', endpoint: init },
    ...Object.entries(ASSETS).map(([file, type]) => ({
      method: 'GET',
      path: `/docs/${file}`,
      endpoint: assetEndpoint(file, type),
    })),
  ];
}
