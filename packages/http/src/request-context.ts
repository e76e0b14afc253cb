import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';
import { bearerToken } from './bearer-token.js';
import { hostName, wellFormedHost } from './host.js';
import { mountPrefix } from './mount-prefix.js';
import { createLinkBase, type Arrival, type PublishedAt } from './own-hosts.js';
import { requestId } from './request-id.js';
import { compileTrust, type TrustProxy } from './trust-proxy.js';

/** Everything the edge needs to know about where the service stands. */
export interface EdgeOptions extends PublishedAt {
  /** Who may tell the service a client's address, scheme and host; nobody by default. */
  trustProxy?: TrustProxy | undefined;
}

/** What the edge knows of one request, worked out once and shared by every layer that serves it. */
export interface RequestContext {
  /** Echoed from a sane `X-Request-Id`, else generated; every response and log line carries it. */
  readonly requestId: string;
  /** The socket's peer, or the address a trusted proxy forwarded (proxy-addr semantics). */
  readonly clientAddress: string;
  /** `https` on a TLS socket or from a trusted proxy's `X-Forwarded-Proto`, else `http`. */
  readonly scheme: 'http' | 'https';
  /** The host asked for (`Host`, or a trusted proxy's `X-Forwarded-Host`), lower case; undefined when malformed. */
  readonly host: string | undefined;
  /** The bearer token of `Authorization`. */
  readonly apiKey: string | undefined;
  /** The `Idempotency-Key` header, as sent. */
  readonly idempotencyKey: string | undefined;
  /**
   * The absolute base address of the API mounted at `basePath` (`/v1`, `/trpc`), for links: one of the service's
   * own addresses, never a foreign host.
   */
  linkBase(basePath: string): string;
  /** The route template the request matched, for logs and metrics; `unmatched` until an adapter matches one. */
  route: string;
  /** The API key the core verified the request as, for logs. */
  keyId: number | undefined;
}

/** The HTTP edge: one place for the trust rules, shared by REST, tRPC and the mountable handler. */
export interface Edge {
  /**
   * The context of a request, built on first use and kept on the request. Every answer the edge writes carries its
   * `X-Request-Id` (it is added when the response is written, so headers go out in one `writeHead`).
   */
  context(req: IncomingMessage): RequestContext;
  /** Answers a request for a redirected domain (301/308, path and query kept) and returns true; else false. */
  redirect(req: IncomingMessage, res: ServerResponse): boolean;
  /** The production and staging base addresses for the OpenAPI `servers`: configured ones, never a request's `Host`. */
  servers(req: IncomingMessage, basePath: string): { production: string; staging: string };
}

const CONTEXT = Symbol.for('petstore.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const firstListed = (value: string | string[] | undefined) => first(value)?.split(',', 1)[0]?.trim();

/**
 * The context an edge already built for a request, if any (for layers that wrap the handler, such as logging).
 * @example res.once('finish', () => log(contextOf(req)?.requestId))
 */
export function contextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

/**
 * Builds the edge from where the service is published and whom it trusts.
 * @example const edge = createEdge({ publicUrl: 'https://api.example.com/v1', trustProxy: 1 }); edge.context(req).linkBase("/v1")
 */
export function createEdge(options: EdgeOptions = {}): Edge {
  const trust = compileTrust(options.trustProxy);
  const trustsNobody = options.trustProxy === undefined || options.trustProxy === false || options.trustProxy === 0;
  const linkBase = createLinkBase(options);
  const redirects = new Map((options.redirects ?? []).map((r) => [r.from.toLowerCase(), r]));
  const publicUrl = options.publicUrl?.replace(/\/+$/, '');
  const stagingUrl = options.stagingUrl?.replace(/\/+$/, '');

  const peerIsTrusted = (req: IncomingMessage) => {
    if (trustsNobody) return false;
    const peer = req.socket?.remoteAddress;
    return peer !== undefined && trust(peer, 0);
  };

  function clientAddress(req: IncomingMessage): string {
    const peer = req.socket?.remoteAddress ?? 'unknown';
    if (trustsNobody || peer === 'unknown') return peer;
    try {
      return proxyaddr(req, trust) || peer;
    } catch {
      return peer;
    }
  }

  function arrival(req: IncomingMessage): Omit<Arrival, 'mount' | 'local'> {
    const encrypted = Boolean((req.socket as Partial<TLSSocket> | null)?.encrypted);
    if (!peerIsTrusted(req)) return { scheme: encrypted ? 'https' : 'http', host: wellFormedHost(req.headers.host) };
    const proto = firstListed(req.headers['x-forwarded-proto'])?.toLowerCase();
    const scheme = proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http';
    const forwardedHost = wellFormedHost(firstListed(req.headers['x-forwarded-host']));
    return { scheme, host: forwardedHost ?? wellFormedHost(req.headers.host) };
  }

  const localOf = (req: IncomingMessage) => () => {
    const address = req.socket?.localAddress ?? '127.0.0.1';
    return `${address.includes(':') ? `[${address}]` : address}:${req.socket?.localPort ?? 80}`;
  };

  function context(req: IncomingMessage): RequestContext {
    const cached = (req as WithContext)[CONTEXT];
    if (cached) return cached;
    const { scheme, host } = arrival(req);
    const built: RequestContext = {
      requestId: requestId(req.headers['x-request-id']),
      clientAddress: clientAddress(req),
      scheme,
      host,
      apiKey: bearerToken(first(req.headers.authorization)),
      idempotencyKey: first(req.headers['idempotency-key']),
      linkBase: (basePath) => linkBase({ scheme, host, mount: mountPrefix(req), local: localOf(req) }, basePath),
      route: 'unmatched',
      keyId: undefined,
    };
    (req as WithContext)[CONTEXT] = built;
    return built;
  }

  return Object.freeze({
    context,
    redirect(req, res) {
      if (redirects.size === 0) return false;
      const { scheme, host, requestId } = context(req);
      const redirect = host === undefined ? undefined : redirects.get(hostName(host));
      if (!redirect) return false;
      res.writeHead(redirect.status, {
        location: `${scheme}://${redirect.to}${req.url ?? '/'}`,
        'content-length': '0',
        'x-request-id': requestId,
      });
      res.end();
      return true;
    },
    servers(req, basePath) {
      const production =
        publicUrl ?? linkBase({ scheme: 'http', host: undefined, mount: mountPrefix(req), local: localOf(req) }, basePath);
      return { production, staging: stagingUrl ?? production };
    },
  } satisfies Edge);
}
