import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createEdge, type EdgeOptions } from './request-context.js';
import { fromNodeRequest } from './node/node-request.js';

interface Fake {
  url?: string;
  headers?: Record<string, string>;
  peer?: string;
  encrypted?: boolean;
  originalUrl?: string;
}

const request = ({ url = '/v1/pets', headers = {}, peer = '10.0.0.1', encrypted, originalUrl }: Fake) =>
  ({
    url,
    headers: { host: 'localhost:3000', ...headers },
    socket: { remoteAddress: peer, localAddress: '127.0.0.1', localPort: 3000, ...(encrypted ? { encrypted } : {}) },
    ...(originalUrl ? { originalUrl } : {}),
  }) as unknown as IncomingMessage;

const standard = (fake: Fake) => fromNodeRequest(request(fake));

const contextOf = (options: EdgeOptions, fake: Fake) => createEdge(options).context(standard(fake));

describe('the client address', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(contextOf({}, { headers: { 'x-forwarded-for': '203.0.113.9' } }).clientAddress).toBe('10.0.0.1');
    expect(contextOf({ trustProxy: false }, { headers: { 'x-forwarded-for': '203.0.113.9' } }).clientAddress).toBe('10.0.0.1');
  });

  it('is the entry the one trusted proxy appended with true, never one the client wrote', () => {
    const headers = { 'x-forwarded-for': '198.51.100.66, 203.0.113.9' };
    expect(contextOf({ trustProxy: true }, { headers }).clientAddress).toBe('203.0.113.9');
    expect(contextOf({ trustProxy: 1 }, { headers }).clientAddress).toBe('203.0.113.9');
  });

  it('walks X-Forwarded-For from the right, skipping a number of hops or trusted subnets', () => {
    const headers = { 'x-forwarded-for': '198.51.100.66, 203.0.113.9, 10.0.0.2' };
    expect(contextOf({ trustProxy: 2 }, { headers }).clientAddress).toBe('203.0.113.9');
    expect(contextOf({ trustProxy: ['10.0.0.0/8'] }, { headers }).clientAddress).toBe('203.0.113.9');
    expect(contextOf({ trustProxy: '10.0.0.0/8, 203.0.113.0/24' }, { headers }).clientAddress).toBe('198.51.100.66');
    expect(contextOf({ trustProxy: ['192.0.2.1'] }, { headers }).clientAddress).toBe('10.0.0.1');
  });
});

describe('the scheme and host of links', () => {
  const published = { publicUrl: 'https://api.example.com/v1', stagingUrl: 'https://staging.example.com/v1' };

  it('ignores X-Forwarded-Proto and -Host from a peer it does not trust', () => {
    const ctx = contextOf({}, { headers: { host: 'api.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.test' } });
    expect(ctx.scheme).toBe('http');
    expect(ctx.host).toBe('api.test');
    expect(ctx.linkBase('/v1')).toBe('http://api.test/v1');
  });

  it('takes X-Forwarded-Proto from a trusted proxy only as http or https', () => {
    expect(contextOf({ trustProxy: true }, { headers: { 'x-forwarded-proto': 'https' } }).scheme).toBe('https');
    expect(contextOf({ trustProxy: true }, { headers: { 'x-forwarded-proto': 'javascript' } }).scheme).toBe('http');
    expect(contextOf({ trustProxy: true }, { headers: { 'x-forwarded-proto': 'javascript' }, encrypted: true }).scheme).toBe('https');
  });

  it('links to the public address when the host is not one of its own, even from a trusted proxy', () => {
    expect(contextOf(published, { headers: { host: 'evil.test' } }).linkBase('/v1')).toBe('https://api.example.com/v1');
    const forwarded = { host: 'api.example.com', 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'http' };
    expect(contextOf({ ...published, trustProxy: true }, { headers: forwarded }).linkBase('/v1')).toBe('https://api.example.com/v1');
  });

  it('links to the host asked for when it is its own: staging, or a redirect target', () => {
    const options = { ...published, redirects: [{ from: 'old.example.com', to: 'pets.example.org', status: 301 as const }] };
    expect(contextOf(options, { headers: { host: 'STAGING.example.com' } }).linkBase('/v1')).toBe('https://staging.example.com/v1');
    expect(contextOf(options, { headers: { host: 'pets.example.org' }, encrypted: true }).linkBase('/trpc')).toBe(
      'https://pets.example.org/trpc',
    );
  });

  it('uses any well-formed host in development, and its own address for a missing or malformed one', () => {
    expect(contextOf({}, { headers: { host: 'dev.test:8080' } }).linkBase('/v1')).toBe('http://dev.test:8080/v1');
    expect(contextOf({}, { headers: { host: 'evil.com>; rel="next", <x' } }).linkBase('/v1')).toBe('http://127.0.0.1:3000/v1');
  });

  it('never links to a forwarded host in development, even from a trusted proxy: the Host header, or its own address', () => {
    const forwarded = { host: 'dev.test:8080', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
    const ctx = contextOf({ trustProxy: true }, { headers: forwarded });
    expect(ctx.host).toBe('evil.example');
    expect(ctx.linkBase('/v1')).toBe('https://dev.test:8080/v1');
    const noHost = contextOf({ trustProxy: true }, { headers: { host: 'evil.com>; x', 'x-forwarded-host': 'evil.example' } });
    expect(noHost.linkBase('/trpc')).toBe('http://127.0.0.1:3000/trpc');
  });

  it('keeps the mount a framework stripped, and the path of the public address', () => {
    const mounted = { url: '/v1/pets', originalUrl: '/petstore/v1/pets', headers: { host: '[::1]:3000' } };
    expect(fromNodeRequest(request(mounted)).url).toBe('/petstore/v1/pets');
    expect(contextOf({}, mounted).linkBase('/petstore/v1')).toBe('http://[::1]:3000/petstore/v1');
    expect(contextOf({ publicUrl: 'https://x.example.com/petstore/v1' }, {}).linkBase('/trpc')).toBe('https://x.example.com/petstore/trpc');
  });

  it('lists only configured servers in the OpenAPI document, or the local address in development', () => {
    const edge = createEdge(published);
    expect(edge.servers(standard({ headers: { host: 'evil.test' } }), '/v1')).toEqual({
      production: 'https://api.example.com/v1',
      staging: 'https://staging.example.com/v1',
    });
    expect(createEdge({}).servers(standard({ headers: { host: 'evil.test' } }), '/v1')).toEqual({
      production: 'http://127.0.0.1:3000/v1',
      staging: 'http://127.0.0.1:3000/v1',
    });
  });
});

describe('the request id, the key and the cache', () => {
  it('echoes a sane X-Request-Id and makes one otherwise', () => {
    expect(contextOf({}, { headers: { 'x-request-id': 'abc-123' } }).requestId).toBe('abc-123');
    expect(contextOf({}, { headers: { 'x-request-id': 'has space' } }).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(contextOf({}, { headers: { 'x-request-id': 'x'.repeat(129) } }).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the bearer token, and nothing from another scheme', () => {
    expect(contextOf({}, { headers: { authorization: 'Bearer  psk_abc ' } }).apiKey).toBe('psk_abc');
    expect(contextOf({}, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }).apiKey).toBeUndefined();
  });
});
