import type { IncomingMessage } from 'node:http';
import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { defaultBaseUrl, mountPrefix, nextPageUrl } from './links.js';

const request = (url: string, headers: Record<string, string>, extra: object = {}) =>
  ({ url, headers, socket: {}, ...extra }) as unknown as IncomingMessage;

describe('links', () => {
  it('finds the mount prefix Express strips from req.url', () => {
    expect(mountPrefix({ url: '/v1/pets?limit=1', originalUrl: '/petstore/v1/pets?limit=1' })).toBe('/petstore');
    expect(mountPrefix({ url: '/v1/pets' })).toBe('');
    expect(mountPrefix({ url: '/v1/pets', originalUrl: '/v1/pets' })).toBe('');
    expect(mountPrefix({ url: '/', originalUrl: '/api/' })).toBe('/api');
  });

  it('derives the base address from the Host header, the mount and the base path', () => {
    expect(defaultBaseUrl(request('/v1/pets', { host: 'api.example.com:8080' }), '/v1')).toBe('http://api.example.com:8080/v1');
    const mounted = request('/v1/pets', { host: '[::1]:3000' }, { originalUrl: '/petstore/v1/pets' });
    expect(defaultBaseUrl(mounted, '/v1')).toBe('http://[::1]:3000/petstore/v1');
  });

  it('uses https on a TLS socket', () => {
    const secure = request('/v1/pets', { host: 'api.example.com' }, { socket: { encrypted: true } });
    expect(defaultBaseUrl(secure, '/v1')).toBe('https://api.example.com/v1');
  });

  it('falls back to localhost for a missing or malformed Host header, so links cannot be injected', () => {
    expect(defaultBaseUrl(request('/v1/pets', {}), '/v1')).toBe('http://localhost/v1');
    expect(defaultBaseUrl(request('/v1/pets', { host: 'evil.com>; rel="next", <x' }), '/v1')).toBe('http://localhost/v1');
  });

  it('builds the next page from the query, replacing the cursor and re-encoding every value', () => {
    expect(nextPageUrl('http://h/v1', '/pets', parse('limit=5&status=sold&cursor=old'), 'new')).toBe(
      'http://h/v1/pets?limit=5&status=sold&cursor=new',
    );
    expect(nextPageUrl('http://h/v1', '/pets', parse('x=%3E%20a'), 'c')).toBe('http://h/v1/pets?x=%3E%20a&cursor=c');
  });
});
