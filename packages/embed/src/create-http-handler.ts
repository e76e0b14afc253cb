import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError, type PetStore } from '@petstore/core';
import { createRestHandler } from '@petstore/rest';
import { createOpenApiDocument, createTrpcHandler } from '@petstore/trpc';

/** One domain answered with a redirect to another: path and query are kept. */
export interface HostRedirect {
  /** Host name the request arrived for, e.g. `old.example.com` (case and port ignored). */
  from: string;
  /** Host (and port, if any) to send it to, e.g. `api.example.com`. */
  to: string;
  status: 301 | 308;
}

/** How the HTTP surface addresses itself. */
export interface HttpHandlerOptions {
  /** Production base address, ending in `/v1`, for the OpenAPI `servers`; default: the request's own address. */
  publicUrl?: string | undefined;
  /** Staging base address, ending in `/v1`; default: the production one. */
  stagingUrl?: string | undefined;
  /** Trust `X-Forwarded-For`, `-Proto` and `-Host` from a proxy in front of the service. */
  trustProxy?: boolean | undefined;
  /** Domains that redirect to another one, so one deployment can answer on several. */
  redirects?: readonly HostRedirect[] | undefined;
  /** Told of every error answered by REST or tRPC, with its cause and the request (for logging 500s). */
  onError?: ((error: PetStoreError, req: IncomingMessage) => void) | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const SANE_REQUEST_ID = /^[\x21-\x7E]{1,128}$/;

function firstForwarded(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const first = text?.split(',')[0]?.trim();
  return first || undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * The whole HTTP surface of the service as one `node:http` handler: REST under `/v1` (with `/v1/openapi.json` and
 * `/v1/docs`), tRPC under `/trpc`, and `GET /healthz`. Every response carries an `X-Request-Id`.
 * @example http.createServer(createHttpHandler(store, { publicUrl: 'https://api.example.com/v1' })).listen(3000)
 */
export function createHttpHandler(store: PetStore, options: HttpHandlerOptions = {}): Handler {
  const { trustProxy = false, publicUrl, stagingUrl, onError } = options;
  const redirects = new Map((options.redirects ?? []).map((r) => [r.from.toLowerCase(), r]));
  const clientAddress = (req: IncomingMessage) =>
    (trustProxy && firstForwarded(req.headers['x-forwarded-for'])) || req.socket.remoteAddress;
  const proto = (req: IncomingMessage) =>
    (trustProxy && firstForwarded(req.headers['x-forwarded-proto'])) || ('encrypted' in req.socket ? 'https' : 'http');
  const host = (req: IncomingMessage) => (trustProxy && firstForwarded(req.headers['x-forwarded-host'])) || req.headers.host;
  const baseUrl = (req: IncomingMessage) => {
    const authority = host(req);
    return authority && /^[\w.-]+(:\d+)?$|^\[[\da-f:.]+\](:\d+)?$/i.test(authority)
      ? `${proto(req)}://${authority}/v1`
      : (publicUrl ?? 'http://localhost/v1');
  };
  const openApiDocument = (requestBaseUrl: string) =>
    createOpenApiDocument({
      servers: { production: publicUrl ?? requestBaseUrl, staging: stagingUrl ?? publicUrl ?? requestBaseUrl },
    });
  const rest = createRestHandler({
    store,
    basePath: '/v1',
    openApiDocument,
    publicBaseUrl: baseUrl,
    clientAddress,
    ...(onError ? { onError } : {}),
  });
  const trpc = createTrpcHandler({
    store,
    basePath: '/trpc',
    publicBaseUrl: baseUrl,
    clientAddress,
    ...(onError ? { onError } : {}),
  });

  return (req, res) => {
    const sent = req.headers['x-request-id'];
    const requestId = typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
    req.headers['x-request-id'] = requestId; // so every layer below logs the id the response carries
    res.setHeader('x-request-id', requestId);
    if (redirects.size) {
      const redirect = redirects.get(host(req)?.replace(/:\d+$/, '').toLowerCase() ?? '');
      if (redirect) {
        res.writeHead(redirect.status, { location: `${proto(req)}://${redirect.to}${req.url ?? '/'}`, 'content-length': 0 });
        res.end();
        return;
      }
    }
    const url = req.url ?? '/';
    if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')) return rest(req, res);
    if (url === '/trpc' || url.startsWith('/trpc/')) return trpc(req, res);
    if (url === '/healthz' || url.startsWith('/healthz?')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        return sendJson(res, 405, new PetStoreError('method_not_allowed').toBody());
      }
      store.isHealthy().then(
        (ok) => sendJson(res, ok ? 200 : 503, ok ? { status: 'ok' } : new PetStoreError('unavailable').toBody()),
        () => sendJson(res, 503, new PetStoreError('unavailable').toBody()),
      );
      return;
    }
    sendJson(res, 404, new PetStoreError('not_found').toBody());
  };
}
