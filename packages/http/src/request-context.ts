import { PetStoreError, type UnavailableReason } from '@petstore/core';
import { bearerToken } from './bearer-token.js';
import { hostName, wellFormedHost } from './host.js';
import { createLinkBase, customDomainBases, type Arrival, type PublishedAt } from './own-hosts.js';
import { requestId } from './request-id.js';
import { splitTarget } from './request-target.js';
import { errorResponse } from './respond.js';
import type { StandardRequest, StandardResponse } from './standard.js';
import { compileTrust, type TrustProxy } from './trust-proxy.js';
import { unknownAddress } from './unknown-address.js';

/** Everything the edge needs to know about where the service stands. */
export interface EdgeOptions extends PublishedAt {
  /** Who may tell the service a client's address, scheme and host; nobody by default. */
  trustProxy?: TrustProxy | undefined;
  /** Paths answered on any host even once custom domains are managed (`/healthz`, `/livez`), as the client sends them. */
  anyHostPaths?: readonly string[] | undefined;
}

/** What the edge knows of one request, worked out once and shared by every step that serves it. */
export interface RequestContext {
  readonly method: string;
  /** Echoed from a sane `X-Request-Id`, else generated; every response and log line carries it. */
  readonly requestId: string;
  /**
   * The socket's peer, or the address a trusted proxy forwarded (proxy-addr semantics); when neither is known,
   * `unknown` for a request whose token could be a key and `unknown, without a key` for the others (see
   * `unknownAddress`).
   */
  readonly clientAddress: string;
  /** `https` on a TLS connection or from a trusted proxy's `X-Forwarded-Proto`, else `http`. */
  readonly scheme: 'http' | 'https';
  /** The host asked for (`Host`, or a trusted proxy's `X-Forwarded-Host`), lower case; undefined when malformed. */
  readonly host: string | undefined;
  /** The bearer token of `Authorization`. */
  readonly apiKey: string | undefined;
  /** The `Idempotency-Key` header, as sent. */
  readonly idempotencyKey: string | undefined;
  /** The `If-Match` header, as sent: the condition of a write that takes one (`updatePet`, `deletePet`). */
  readonly ifMatch: string | undefined;
  /**
   * The absolute base address of an API at `basePath` (`/v1`, `/petstore/trpc`, as the client's path has it), for
   * links: one of the service's own addresses, never a foreign host.
   */
  linkBase(basePath: string): string;
  /** The route template the request matched, for logs and metrics; `unmatched` until a codec matches one. */
  route: string;
  /** The API key the core verified the request as, for logs. */
  keyId: number | undefined;
  /** Why the request was answered 503 `unavailable` (the dependency that could not be reached), for metrics. */
  unavailable: UnavailableReason | undefined;
}

/** The HTTP edge: one place for the trust rules, shared by every codec and adapter. */
export interface Edge {
  /** The context of a request, built once. */
  context(request: StandardRequest): RequestContext;
  /**
   * The answer the edge gives before anything else, if any: the redirect (301/308, path and query kept) for a request
   * to a redirected domain, or, once custom domains are managed, 421 `misdirected_request` for a host that is not
   * the service's own.
   */
  redirect(request: StandardRequest, ctx: RequestContext): StandardResponse | undefined;
  /**
   * The production and staging base addresses for the OpenAPI `servers`: configured ones, never a request's `Host`;
   * in development the address the request reached this server on, with `basePath`. `custom`: the verified custom
   * domains' base addresses.
   */
  servers(request: StandardRequest, basePath: string): { production: string; staging: string; custom?: readonly string[] };
}

const firstListed = (value: string | undefined) => value?.split(',', 1)[0]?.trim();

/**
 * The client address by the rule of `proxy-addr`: the peer, then `X-Forwarded-For` from the right while each hop so
 * far is a trusted proxy.
 */
function forwardedAddress(peer: string, forwardedFor: string | undefined, trust: (address: string, hop: number) => boolean) {
  if (!forwardedFor) return peer;
  const hops = forwardedFor.split(',');
  let address = peer;
  for (let hop = 0, i = hops.length - 1; trust(address, hop) && i >= 0; hop++, i--) {
    const next = hops[i]!.trim();
    if (next === '') break;
    address = next;
  }
  return address;
}

/**
 * Builds the edge from where the service is published and whom it trusts.
 * @example const edge = createEdge({ publicUrl: 'https://api.example.com/v1', trustProxy: 1 }); edge.context(request).linkBase('/v1')
 */
export function createEdge(options: EdgeOptions = {}): Edge {
  const trust = compileTrust(options.trustProxy);
  const trustsNobody = options.trustProxy === undefined || options.trustProxy === false || options.trustProxy === 0;
  const linkBase = createLinkBase(options);
  const redirects = new Map((options.redirects ?? []).map((r) => [r.from.toLowerCase(), r]));
  const publicUrl = options.publicUrl?.replace(/\/+$/, '');
  const stagingUrl = options.stagingUrl?.replace(/\/+$/, '');
  const ownHosts = new Set(
    [options.publicUrl, options.stagingUrl]
      .filter((url): url is string => Boolean(url))
      .map((url) => hostName(new URL(url).host.toLowerCase()))
      .concat((options.redirects ?? []).map((r) => hostName(r.to.toLowerCase()))),
  );
  const anyHostPaths = new Set(options.anyHostPaths ?? []);
  const hostRedirect = (request: StandardRequest, ctx: RequestContext, to: string, status: 301 | 308): StandardResponse => ({
    status,
    headers: { location: `${ctx.scheme}://${to}${request.url}`, 'content-length': '0' },
    body: undefined,
  });

  /** Custom domains: a verified one's redirect, nothing for the service's own hosts, else 421 once any is managed. */
  function managed(request: StandardRequest, ctx: RequestContext): StandardResponse | undefined {
    const domains = options.domains?.();
    if (!domains?.managed) return undefined;
    const name = ctx.host === undefined ? undefined : hostName(ctx.host);
    if (name !== undefined) {
      const redirect = domains.verified.get(name);
      if (redirect) return hostRedirect(request, ctx, redirect.to, redirect.status);
      if (domains.verified.has(name) || ownHosts.has(name)) return undefined;
    }
    if (anyHostPaths.size > 0 && anyHostPaths.has(splitTarget(request.url).path)) return undefined;
    return errorResponse(new PetStoreError('misdirected_request'));
  }

  function arrival(request: StandardRequest, peerTrusted: boolean): Omit<Arrival, 'local'> {
    const { encrypted } = request.peer;
    const hostHeader = wellFormedHost(request.header('host'));
    if (!peerTrusted) return { scheme: encrypted ? 'https' : 'http', host: hostHeader, hostHeader };
    const proto = firstListed(request.header('x-forwarded-proto'))?.toLowerCase();
    const scheme = proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http';
    const forwardedHost = wellFormedHost(firstListed(request.header('x-forwarded-host')));
    return { scheme, host: forwardedHost ?? hostHeader, hostHeader };
  }

  const localOf = (request: StandardRequest) => () => request.peer.local ?? '127.0.0.1:80';

  function context(request: StandardRequest): RequestContext {
    const peer = request.peer.address;
    const peerTrusted = !trustsNobody && peer !== undefined && trust(peer, 0);
    const { scheme, host, hostHeader } = arrival(request, peerTrusted);
    const apiKey = bearerToken(request.header('authorization'));
    return {
      method: request.method,
      requestId: requestId(request.header('x-request-id')),
      clientAddress:
        !peer
          ? unknownAddress(apiKey)
          : peerTrusted
            ? forwardedAddress(peer, request.header('x-forwarded-for'), trust)
            : peer,
      scheme,
      host,
      apiKey,
      idempotencyKey: request.header('idempotency-key'),
      ifMatch: request.header('if-match'),
      linkBase: (basePath) => linkBase({ scheme, host, hostHeader, local: localOf(request) }, basePath),
      route: 'unmatched',
      keyId: undefined,
      unavailable: undefined,
    };
  }

  return Object.freeze({
    context,
    redirect(request, ctx) {
      const redirect = redirects.size === 0 || ctx.host === undefined ? undefined : redirects.get(hostName(ctx.host));
      if (redirect) return hostRedirect(request, ctx, redirect.to, redirect.status);
      return managed(request, ctx);
    },
    servers(request, basePath) {
      const production =
        publicUrl ?? linkBase({ scheme: 'http', host: undefined, hostHeader: undefined, local: localOf(request) }, basePath);
      const custom = customDomainBases(options, basePath);
      return { production, staging: stagingUrl ?? production, ...(custom.length > 0 ? { custom } : {}) };
    },
  } satisfies Edge);
}
