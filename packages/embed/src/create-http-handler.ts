import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError, type PetStore } from '@petstore/core';
import { createRestHandler } from '@petstore/rest';
import { createOpenApiDocument, createTrpcHandler } from '@petstore/trpc';

/** How the HTTP surface addresses itself. */
export interface HttpHandlerOptions {
  /** Production base address, ending in `/v1`, listed in the OpenAPI document's `servers`. */
  publicUrl?: string | undefined;
  /** Staging base address, ending in `/v1`. */
  stagingUrl?: string | undefined;
  /** Trust `X-Forwarded-For`, `-Proto` and `-Host` from a proxy in front of the service. */
  trustProxy?: boolean | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

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
 * `/v1/docs`), tRPC under `/trpc`, and `GET /healthz`.
 * @example http.createServer(createHttpHandler(store, { publicUrl: 'https://api.example.com/v1' })).listen(3000)
 */
export function createHttpHandler(store: PetStore, options: HttpHandlerOptions = {}): Handler {
  const { trustProxy = false } = options;
  const clientAddress = (req: IncomingMessage) =>
    (trustProxy && firstForwarded(req.headers['x-forwarded-for'])) || req.socket.remoteAddress;
  const origin = (req: IncomingMessage) => {
    const proto = (trustProxy && firstForwarded(req.headers['x-forwarded-proto'])) || 'http';
    const host = (trustProxy && firstForwarded(req.headers['x-forwarded-host'])) || req.headers.host;
    return host ? `${proto}://${host}` : new URL(options.publicUrl ?? 'http://localhost/v1').origin;
  };
  const openApiDocument = () =>
    createOpenApiDocument({
      servers: {
        production: options.publicUrl ?? 'http://localhost:3000/v1',
        ...(options.stagingUrl ? { staging: options.stagingUrl } : {}),
      },
    });

  const rest = createRestHandler({
    store,
    basePath: '/v1',
    openApiDocument,
    publicBaseUrl: (req) => `${origin(req)}/v1`,
    clientAddress,
  });
  const trpc = createTrpcHandler({ store, basePath: '/trpc', publicBaseUrl: (req) => `${origin(req)}/v1`, clientAddress });

  return (req, res) => {
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
