import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Endpoint } from './endpoint.js';
import type { OpenApiDocumentCache } from './openapi/openapi-endpoint.js';
import type { RouteDefinition } from './router.js';
import { sendResource } from '@petstore/http';

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const ASSET_CACHE = 'public, max-age=86400';

const PAGE = Buffer.from(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
<style>body { margin: 0; background: #fafafa; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="docs.js"></script>
</body>
</html>
`);

const INIT = Buffer.from(`window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`);

function contentSecurityPolicy(connect: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function assetEndpoint(directory: () => string, file: string, contentType: string): Endpoint {
  let body: Buffer | undefined;
  return async (_req, res) => {
    body ??= await readFile(join(directory(), file));
    sendResource(res, contentType, body, { 'cache-control': ASSET_CACHE });
  };
}

/**
 * The routes of the human docs (`/docs/` and swagger-ui-dist's assets, served from this package), relative to the base path.
 * @example createRouter([...operationRoutes, ...docsRoutes(cache)])
 */
export function docsRoutes(document: OpenApiDocumentCache): RouteDefinition<Endpoint>[] {
  let distDir: string | undefined;
  const swaggerUiDist = () =>
    (distDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));
  const page: Endpoint = (req, res) =>
    sendResource(res, 'text/html; charset=utf-8', PAGE, {
      'cache-control': 'no-cache',
      'content-security-policy': contentSecurityPolicy(document.serverOrigins(req)),
      'referrer-policy': 'no-referrer',
    });
  const redirect: Endpoint = (_req, res) => {
    res.writeHead(301, { location: 'docs/', 'content-length': '0' });
    res.end();
  };
  const init: Endpoint = (_req, res) =>
    sendResource(res, 'text/javascript; charset=utf-8', INIT, { 'cache-control': 'no-cache' });
  return [
    { method: 'GET', path: '/docs', endpoint: redirect },
    { method: 'GET', path: '/docs/', endpoint: page },
    { method: 'GET', path: '/docs/docs.js', endpoint: init },
    ...Object.entries(ASSETS).map(([file, type]) => ({
      method: 'GET',
      path: `/docs/${file}`,
      endpoint: assetEndpoint(swaggerUiDist, file, type),
    })),
  ];
}
