import { readFile } from 'node:fs/promises';
import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingQuota } from './testing/counting-quota.js';
import { expectError, startRestServer, type RestServer } from './testing/rest-server.js';

const redocBundles = new URL('bundles/', new URL(import.meta.resolve('redoc/package.json')));
const document = {
  openapi: '3.1.0',
  info: { title: 'Pet Store', version: '1.0.0' },
  servers: [{ url: 'https://api.example.com/v1' }, { url: 'https://staging.example.com/v1' }],
  paths: {},
};

describe.each(testDatabases)('the OpenAPI document and the docs on $name', (database) => {
  let api: RestServer;
  let builds = 0;
  beforeAll(async () => {
    api = await startRestServer(database, {
      quota: (clock) => countingQuota(1000, clock),
      handler: { openApiDocument: () => (builds++, document) },
    });
  });
  afterAll(() => api.close());

  it('serves the OpenAPI document without a key, built and serialised once', async () => {
    const first = await fetch(`${api.base}/openapi.json`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('x-ratelimit-limit')).toBeNull();
    expect(await first.json()).toEqual(document);
    expect(await (await fetch(`${api.base}/openapi.json`)).json()).toEqual(document);
    expect(builds).toBe(1);
  });

  it('redirects /docs to /docs/, which serves an HTML page using only local assets', async () => {
    const redirect = await fetch(`${api.base}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('docs/');
    const page = await fetch(`${api.base}/docs`);
    expect(page.url).toBe(`${api.base}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-ratelimit-limit')).toBeNull();
    const html = await page.text();
    expect(html).toContain('<div id="redoc"></div>');
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(references.sort()).toEqual(['data:,', 'docs.js', 'redoc.standalone.js']);
  });

  it('sends a Content-Security-Policy that allows only its own scripts and the documented servers', async () => {
    const policy = (await fetch(`${api.base}/docs/`)).headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("img-src 'self' data:;");
    expect(policy).toContain("connect-src 'self' https://api.example.com https://staging.example.com");
  });

  it('serves Redoc\'s standalone bundle from this package, with its one remote address (a logo) made local', async () => {
    const response = await fetch(`${api.base}/docs/redoc.standalone.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    const served = await response.text();
    const original = await readFile(new URL('redoc.standalone.js', redocBundles), 'utf8');
    expect(original).toContain('https://cdn.redoc.ly/');
    expect(served).not.toContain('https://cdn.redoc.ly/');
    const logo = /data:image\/gif;base64,[A-Za-z0-9+/=]+/.exec(served)?.[0] ?? 'no data: logo';
    expect(served === original.replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', logo), 'the bundle, changed only in its logo').toBe(true);
    const license = await fetch(`${api.base}/docs/redoc.standalone.js.LICENSE.txt`);
    expect(license.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await license.text()).toBe(await readFile(new URL('redoc.standalone.js.LICENSE.txt', redocBundles), 'utf8'));
  });

  it('serves the page script, which loads the document by a relative URL', async () => {
    const response = await fetch(`${api.base}/docs/docs.js`);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await response.text();
    expect(script).toContain("Redoc.init(\n  new URL('../openapi.json', document.baseURI).href");
    expect(script).not.toMatch(/https?:\/\//);
  });

  it('answers HEAD on the docs without a body', async () => {
    const head = await fetch(`${api.base}/docs/redoc.standalone.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect(await head.text()).toBe('');
  });

  it('answers 404 for an asset it does not serve and 405 for another method', async () => {
    await expectError(await fetch(`${api.base}/docs/swagger-ui-bundle.js`), 404, 'not_found');
    await expectError(await fetch(`${api.base}/docs/REDOC-LICENSE.txt`), 404, 'not_found');
    await expectError(await fetch(`${api.base}/docs/..%2F..%2Fpackage.json`), 404, 'not_found');
    const post = await fetch(`${api.base}/openapi.json`, { method: 'POST' });
    await expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 404 for the document and the docs when no document was given', async () => {
    const bare = await startRestServer(database);
    try {
      await expectError(await fetch(`${bare.base}/openapi.json`), 404, 'not_found');
      await expectError(await fetch(`${bare.base}/docs/`), 404, 'not_found');
    } finally {
      await bare.close();
    }
  });
});
