import type { DomainHostsSnapshot } from '@petstore/core';
import { hostName } from './host.js';

/** One domain answered with a redirect to another: path and query are kept. */
export interface HostRedirect {
  /** Host name the request arrived for, e.g. `old.example.com` (case and port ignored). */
  from: string;
  /** Host (and port, if any) to send it to, e.g. `api.example.com`. */
  to: string;
  status: 301 | 308;
}

/** Where the service is published. */
export interface PublishedAt {
  /** Production base address, ending in `/v1`. Unset: development, where links follow any well-formed host. */
  publicUrl?: string | undefined;
  /** Staging base address, ending in `/v1`. */
  stagingUrl?: string | undefined;
  /** Domains that redirect to another one; their targets are hosts of the service too. */
  redirects?: readonly HostRedirect[] | undefined;
  /**
   * Custom domains managed while the service runs, read on every request so a change applies to the next one:
   * verified domains are hosts of the service; once any domain is managed, other hosts get 421.
   */
  domains?: (() => DomainHostsSnapshot) | undefined;
}

/** The scheme and host a request arrived with, as the edge trusts them. */
export interface Arrival {
  scheme: 'http' | 'https';
  /** Well-formed, lower case; undefined when missing or malformed. A trusted proxy's `X-Forwarded-Host` if it sent one. */
  host: string | undefined;
  /** The request's own `Host` header, well-formed and lower case, never a forwarded host; undefined otherwise. */
  hostHeader: string | undefined;
  /** The address and port the request reached this server on, as `host:port`. */
  local: () => string;
}

/** A base address without its last path segment: `https://api.example.com/v1` → `https://api.example.com`. */
function parentOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/[^/]*$/, '');
}

/** The last segment of a base path, with its slash: `/petstore/v1` → `/v1`. */
function lastSegment(basePath: string): string {
  return basePath.replace(/\/+$/, '').replace(/^.*(?=\/)/, '');
}

/**
 * The rule of DECISIONS "Proxies and hosts" for links: the request's host only when it is one of the service's own
 * (the public and staging addresses, the targets of host redirects, verified custom domains), else the public address; with no public address
 * (development), the well-formed `Host` header, never a forwarded host (a client behind a pass-through proxy writes
 * that header itself, and with no public address the service knows no host of its own to check it against). Returns the absolute base address of an API at `basePath` (as the client's
 * path has it): the configured address with the API's own last segment (`/v1`, `/trpc`), or in development the
 * request's scheme, host and base path.
 * @example createLinkBase({ publicUrl: 'https://api.example.com/v1' })(arrival, '/trpc') // 'https://api.example.com/trpc'
 */
export function createLinkBase(published: PublishedAt): (arrival: Arrival, basePath: string) => string {
  const own = [published.publicUrl, published.stagingUrl]
    .filter((url): url is string => Boolean(url))
    .map((url) => ({ host: new URL(url).host.toLowerCase(), parent: parentOf(url) }));
  const publicParent = own[0]?.parent;
  if (publicParent === undefined) {
    return ({ scheme, hostHeader, local }, basePath) => `${scheme}://${hostHeader ?? local()}${basePath}`;
  }
  const parents = new Map(own.map(({ host, parent }) => [host, parent]));
  const publicPath = new URL(publicParent).pathname.replace(/\/+$/, '');
  const targets = new Set((published.redirects ?? []).map((redirect) => redirect.to.toLowerCase()));
  const parentFor = ({ scheme, host }: Arrival) => {
    if (host === undefined) return publicParent;
    const parent = parents.get(host) ?? parents.get(hostName(host));
    if (parent !== undefined) return parent;
    const own = targets.has(host) || targets.has(hostName(host)) || published.domains?.().verified.has(hostName(host));
    return own ? `${scheme}://${host}${publicPath}` : publicParent;
  };
  return (arrival, basePath) => `${parentFor(arrival)}${lastSegment(basePath)}`;
}

/**
 * The base addresses of the verified custom domains, for the OpenAPI `servers`: `https://` (certificates come from the
 * TLS server in front), the public address's path, and the API's last segment.
 * @example customDomainBases({ publicUrl: 'https://api.example.com/v1', domains }, '/v1') // ['https://shop.example.org/v1']
 */
export function customDomainBases(published: PublishedAt, basePath: string): string[] {
  const verified = published.domains?.().verified;
  if (!verified || verified.size === 0) return [];
  const path = published.publicUrl
    ? `${new URL(parentOf(published.publicUrl)).pathname.replace(/\/+$/, '')}${lastSegment(basePath)}`
    : basePath;
  return [...verified.entries()]
    .filter(([, redirect]) => redirect === undefined)
    .map(([name]) => `https://${name}${path}`)
    .sort();
}
