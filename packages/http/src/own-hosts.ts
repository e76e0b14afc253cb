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
}

/** The scheme, host and mount a request arrived with, as the edge trusts them. */
export interface Arrival {
  scheme: 'http' | 'https';
  /** Well-formed, lower case; undefined when missing or malformed. */
  host: string | undefined;
  /** The path a framework mounted the handler under (`/petstore` in Express), or ''. */
  mount: string;
  /** The address and port the request reached this server on, as `host:port`. */
  local: () => string;
}

/** A base address without its version segment: `https://api.example.com/v1` → `https://api.example.com`. */
function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * The rule of DECISIONS "Proxies and hosts" for links: the request's host only when it is one of the service's own
 * (the public and staging addresses, the targets of host redirects), else the public address; with no public address
 * (development), any well-formed host. Returns the absolute root of the service for a request, without a trailing
 * slash; the API's base paths (`/v1`, `/trpc`) go after it.
 * @example linkRoot({ publicUrl: 'https://api.example.com/v1' })({ scheme: 'http', host: 'evil.test', mount: '', local }) // 'https://api.example.com'
 */
export function createLinkRoot(published: PublishedAt): (arrival: Arrival) => string {
  const own = [published.publicUrl, published.stagingUrl]
    .filter((url): url is string => Boolean(url))
    .map((url) => ({ host: new URL(url).host.toLowerCase(), root: rootOf(url) }));
  const publicRoot = own[0]?.root;
  if (publicRoot === undefined) {
    return ({ scheme, host, mount, local }) => `${scheme}://${host ?? local()}${mount}`;
  }
  const roots = new Map(own.map(({ host, root }) => [host, root]));
  const publicPath = new URL(publicRoot).pathname.replace(/\/+$/, '');
  const targets = new Set((published.redirects ?? []).map((redirect) => redirect.to.toLowerCase()));
  return ({ scheme, host }) => {
    if (host === undefined) return publicRoot;
    const root = roots.get(host) ?? roots.get(hostName(host));
    if (root !== undefined) return root;
    return targets.has(host) || targets.has(hostName(host)) ? `${scheme}://${host}${publicPath}` : publicRoot;
  };
}
