import type { IncomingMessage } from 'node:http';
import type { DomainHostsSnapshot, DomainRedirect } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { fromNodeRequest } from './node/node-request.js';
import { createEdge, type EdgeOptions } from './request-context.js';

const standard = (host: string, url = '/v1/pets?limit=2') =>
  fromNodeRequest({
    url,
    headers: { host },
    socket: { remoteAddress: '10.0.0.1', localAddress: '127.0.0.1', localPort: 3000 },
  } as unknown as IncomingMessage);

/** An edge whose domains the test changes between requests, as the registry does. */
function edgeWith(options: EdgeOptions = {}) {
  let snapshot: DomainHostsSnapshot = { managed: false, verified: new Map() };
  const edge = createEdge({
    publicUrl: 'https://api.example.com/v1',
    stagingUrl: 'https://staging.example.com/v1',
    redirects: [{ from: 'old.example.com', to: 'moved.example.com', status: 301 }],
    anyHostPaths: ['/healthz', '/livez'],
    domains: () => snapshot,
    ...options,
  });
  const set = (managed: boolean, verified: Record<string, DomainRedirect | undefined> = {}) => {
    snapshot = { managed, verified: new Map(Object.entries(verified)) };
  };
  const answer = (host: string, url?: string) => {
    const request = standard(host, url);
    return edge.redirect(request, edge.context(request));
  };
  return { edge, set, answer };
}

describe('custom domains at the edge', () => {
  it('serves every host while no domain is managed', () => {
    const { answer } = edgeWith();
    expect(answer('anything.example.org')).toBeUndefined();
  });

  it('answers 421 misdirected_request for a foreign host once a domain is managed, and serves its own hosts', () => {
    const { answer, set } = edgeWith();
    set(true);
    const refused = answer('anything.example.org');
    expect(refused?.status).toBe(421);
    expect(JSON.parse(String(refused?.body))).toMatchObject({ code: 'misdirected_request', status: 421 });
    for (const own of ['api.example.com', 'API.example.com:443', 'staging.example.com', 'moved.example.com']) {
      expect(answer(own)).toBeUndefined();
    }
    expect(answer('old.example.com')?.status).toBe(301);
  });

  it('answers health on any host', () => {
    const { answer, set } = edgeWith();
    set(true);
    expect(answer('anything.example.org', '/healthz')).toBeUndefined();
    expect(answer('anything.example.org', '/livez')).toBeUndefined();
    expect(answer('anything.example.org', '/healthz/more')?.status).toBe(421);
  });

  it('serves a verified domain, links on it, lists it in the servers, and refuses it with the next request once gone', () => {
    const { answer, set, edge } = edgeWith();
    set(true, { 'shop.example.org': undefined });
    expect(answer('shop.example.org')).toBeUndefined();
    const request = standard('shop.example.org');
    expect(edge.context(request).linkBase('/v1')).toBe('http://shop.example.org/v1');
    expect(edge.servers(request, '/v1').custom).toEqual(['https://shop.example.org/v1']);
    set(true);
    expect(answer('shop.example.org')?.status).toBe(421);
    expect(edge.context(request).linkBase('/v1')).toBe('https://api.example.com/v1');
    expect(edge.servers(request, '/v1').custom).toBeUndefined();
  });

  it('redirects a verified domain with its status, keeping path and query', () => {
    const { answer, set } = edgeWith();
    set(true, { 'old.example.org': { to: 'shop.example.org', status: 308 }, 'shop.example.org': undefined });
    const redirect = answer('old.example.org', '/v1/pets?limit=2&status=sold');
    expect(redirect?.status).toBe(308);
    expect(redirect?.headers['location']).toBe('http://shop.example.org/v1/pets?limit=2&status=sold');
  });
});
