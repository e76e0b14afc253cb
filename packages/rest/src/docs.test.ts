import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createPetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiDocument } from './openapi/create-openapi-document.js';
import { createRestHandler } from './rest-handler.js';
import { expectError, startRestServer, type RestServer } from './testing/rest-server.js';

const redocBundles = new URL('bundles/', new URL(import.meta.resolve('redoc/package.json')));
const servers = { production: 'https://api.example.com/v1', staging: 'https://staging.example.com/v1' };
const document = JSON.parse(JSON.stringify(createOpenApiDocument({ servers })));

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function rawGet(port: string, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject).end();
  });
}

/** A GET answered as bytes, with the headers of our choosing (fetch decodes compressed bodies itself). */
function rawGetBytes(port: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject).end();
  });
}

describe.each(testDatabases)('the OpenAPI document and the docs on $name', (database) => {
  let api: RestServer;
  beforeAll(async () => {
    api = await startRestServer(database, { handler: { publicUrl: servers.production, stagingUrl: servers.staging } });
  });
  afterAll(() => api.close());

  it('serves the OpenAPI document without a key, counted, with the configured servers whatever Host is asked', async () => {
    const first = await fetch(`${api.base}/openapi.json`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(await first.json()).toEqual(document);
    const port = new URL(api.base).port;
    for (const host of ['evil.example.net', 'other.test:8080']) {
      const asked = await rawGet(port, '/v1/openapi.json', host);
      expect(JSON.parse(asked).servers).toEqual(document.servers);
    }
  });

  it('redirects /docs to /docs/, which serves an HTML page using only local assets', async () => {
    const redirect = await fetch(`${api.base}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('docs/');
    const page = await fetch(`${api.base}/docs`);
    expect(page.url).toBe(`${api.base}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-ratelimit-limit')).toBe('60');
    const html = await page.text();
    expect(html).toContain('<div id="redoc"></div>');
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(references.sort()).toEqual(['data:,', 'docs.js', expect.stringMatching(/^redoc\.standalone\.[A-Za-z0-9_-]{16}\.js$/)]);
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
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
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

  it('lists the address it listens on as the one server when no public address is configured', async () => {
    const local = await startRestServer(database);
    try {
      const port = new URL(local.base).port;
      const asked = JSON.parse(await rawGet(port, '/v1/openapi.json', 'evil.example.net'));
      expect(asked.servers).toEqual([{ url: `http://127.0.0.1:${port}/v1`, description: 'Production', 'x-internal': false }]);
      expect(asked.info.contact).toBeUndefined();
    } finally {
      await local.close();
    }
  });

  it('writes an IPv4 address reached on a dual-stack socket as IPv4, and names the contact it is given', async () => {
    const opened = await database.open();
    const store = createPetStore({ db: opened.db });
    const contact = { name: 'Acme API support', url: 'https://acme.example/support', email: 'api@acme.example' };
    const server = createServer(createRestHandler({ store, contact }));
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    try {
      const port = String((server.address() as AddressInfo).port);
      const asked = JSON.parse(await rawGet(port, '/v1/openapi.json', `127.0.0.1:${port}`));
      expect(asked.servers).toEqual([{ url: `http://127.0.0.1:${port}/v1`, description: 'Production', 'x-internal': false }]);
      expect(asked.info.contact).toEqual(contact);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await opened.close();
    }
  });

  it('sends the bundle the page loads compressed as the client accepts, with an ETag, immutable under its hashed name', async () => {
    const html = await (await fetch(`${api.base}/docs/`)).text();
    const hashed = /src="(redoc\.standalone\.([A-Za-z0-9_-]{16})\.js)"/.exec(html)!;
    const plain = Buffer.from(await (await fetch(`${api.base}/docs/redoc.standalone.js`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
    expect(createHash('sha256').update(plain).digest('base64url').slice(0, 16)).toBe(hashed[2]);
    const port = new URL(api.base).port;
    const get = (path: string, headers: Record<string, string>) => rawGetBytes(port, `/v1/docs/${path}`, headers);
    const br = await get(hashed[1]!, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers).toMatchObject({ 'content-encoding': 'br', 'cache-control': 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' });
    expect(br.body.length).toBeLessThan(plain.length / 3);
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    const gzip = await get(hashed[1]!, { 'accept-encoding': 'gzip, br;q=0' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    const identity = await get(hashed[1]!, {});
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain)).toBe(true);
    const etag = String(br.headers['etag']);
    expect(etag).toBe(`W/"${hashed[2]}"`);
    expect([gzip.headers['etag'], identity.headers['etag']]).toEqual([etag, etag]);
    const revalidated = await get(hashed[1]!, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers['etag']).toBe(etag);
    const plainName = await get('redoc.standalone.js', { 'if-none-match': `"${hashed[2]}"` });
    expect(plainName.status).toBe(304);
    expect((await get('redoc.standalone.js', {})).headers['cache-control']).toBe('public, max-age=86400');
  });

  it('sends the OpenAPI document compressed as the client accepts, with an ETag, and 304 for the one the client has', async () => {
    const port = new URL(api.base).port;
    const get = (headers: Record<string, string>) => rawGetBytes(port, '/v1/openapi.json', headers);
    const identity = await get({});
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(identity.body.toString('utf8'))).toEqual(document);
    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers).toMatchObject({ 'content-encoding': 'br', 'cache-control': 'no-cache', vary: 'Accept-Encoding', 'content-type': 'application/json; charset=utf-8' });
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    const gzip = await get({ 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
    console.log(`openapi.json: ${identity.body.length} bytes, gzip ${gzip.body.length}, br ${br.body.length}`);
    expect(br.body.length).toBeLessThan(identity.body.length / 5);
    const etag = String(identity.headers['etag']);
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{16}"$/);
    expect([br.headers['etag'], gzip.headers['etag']]).toEqual([etag, etag]);
    const revalidated = await get({ 'accept-encoding': 'br', 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers['etag']).toBe(etag);
    expect((await get({ 'if-none-match': 'W/"something-else"' })).status).toBe(200);
  });

  it('answers 404 for the document and the docs when docs are turned off', async () => {
    const bare = await startRestServer(database, { handler: { docs: false } });
    try {
      await expectError(await fetch(`${bare.base}/openapi.json`), 404, 'not_found');
      await expectError(await fetch(`${bare.base}/docs/`), 404, 'not_found');
    } finally {
      await bare.close();
    }
  });
});

describe.each(testDatabases)('the docs counted against the address on $name', (database) => {
  let api: RestServer;
  beforeAll(async () => {
    api = await startRestServer(database, { quota: { perAddressPerMinute: 5 } });
  });
  afterAll(() => api.close());

  it('refuses the bundle with the address 429 once the address is over its limit, while a keyed client is served', async () => {
    // A client of the API with its key, known at this address (it succeeded from it), as DECISIONS "Gaps in limits" has it.
    expect((await fetch(`${api.base}/pets`, { headers: api.auth })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await fetch(`${api.base}/docs/redoc.standalone.js`, { method: 'HEAD' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await fetch(`${api.base}/docs/redoc.standalone.js`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    expect(Number(refused.headers.get('content-length'))).toBeLessThan(1000);
    // The page counts too; the API's own clients, with their key, are served throughout.
    expect((await fetch(`${api.base}/docs/`)).status).toBe(429);
    const listed = await fetch(`${api.base}/pets`, { headers: api.auth });
    expect(listed.status).toBe(200);
    // The docs asked for with that key are the key's request, as usual: served, counted against its windows.
    const keyed = await fetch(`${api.base}/docs/`, { headers: api.auth });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-ratelimit-limit')).toBe(listed.headers.get('x-ratelimit-limit'));
    expect(Number(keyed.headers.get('x-ratelimit-remaining'))).toBe(Number(listed.headers.get('x-ratelimit-remaining')) - 1);
    // A token never served from this address is refused as a wrong one is.
    expect((await fetch(`${api.base}/docs/`, { headers: { authorization: 'Bearer pk_wrong' } })).status).toBe(429);
    api.clock.at += 60_000;
    expect((await fetch(`${api.base}/docs/redoc.standalone.js`, { method: 'HEAD' })).status).toBe(200);
  });

  it('counts the OpenAPI document against the address as it counts the docs: refused with the address 429 over the limit', async () => {
    api.clock.at += 60_000;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await fetch(`${api.base}/openapi.json`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await fetch(`${api.base}/openapi.json`, { headers: { 'if-none-match': '*' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    // With the key of a client of the API, it is the key's request.
    expect((await fetch(`${api.base}/openapi.json`, { headers: api.auth })).status).toBe(200);
  });
});
