import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import type { PetStore, PetStoreError } from '@petstore/core';
import { appRouter } from '../app-router.js';
import { createContext } from '../context.js';
import { petStoreErrorOf, toTrpcError } from '../errors/error-mapping.js';
import { headersOf } from './response-headers.js';
import { matchesProcedure } from './matches-procedure.js';

const MAX_BODY_BYTES = 64 * 1024;
const REQUEST_ID = /^[!-~]{1,128}$/;

/** What {@link createTrpcHandler} is built from. */
export interface TrpcHandlerOptions {
  store: PetStore;
  /** Where the tRPC API is mounted. */
  basePath?: string;
  /** The absolute REST base address ending in `/v1` (links); defaults to `http://<Host>/v1`. */
  publicBaseUrl?: string | ((req: IncomingMessage) => string);
  /** The client's address (behind a proxy); defaults to the socket's remote address. */
  clientAddress?: (req: IncomingMessage) => string | undefined;
  /** Called with every error answered, e.g. to log `internal_error`s with their cause. */
  onError?: (error: PetStoreError, req: IncomingMessage) => void;
}

const decoded = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
};

function requestId(req: IncomingMessage, res: ServerResponse) {
  if (res.hasHeader('x-request-id')) return;
  const sent = req.headers['x-request-id'];
  res.setHeader('x-request-id', typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID());
}

/**
 * The tRPC API as a `node:http` handler for requests under `basePath` (`/trpc/pets.list?input=…`).
 * @example http.createServer(createTrpcHandler({ store })).listen(3000)
 */
export function createTrpcHandler(options: TrpcHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, basePath = '/trpc', onError } = options;
  return (req, res) => {
    requestId(req, res);
    const publicBaseUrl =
      typeof options.publicBaseUrl === 'function' ? options.publicBaseUrl(req) : options.publicBaseUrl;
    const ctx = createContext({ store, req, basePath, publicBaseUrl, clientAddress: options.clientAddress?.(req) });
    const path = (req.url ?? '').split('?', 1)[0]!.slice(basePath.length + 1);
    void nodeHTTPRequestHandler({
      router: appRouter,
      req,
      res,
      path,
      maxBodySize: MAX_BODY_BYTES,
      createContext: () => ctx,
      middleware: (_req, _res, next) => {
        if (matchesProcedure(appRouter, decoded(path), req.method)) return next();
        store.meter(ctx.caller).then(
          (meta) => {
            Object.assign(ctx.response.meta, meta);
            next();
          },
          (error: unknown) => next(toTrpcError(error))
        );
      },
      responseMeta: ({ errors }) => ({ headers: headersOf(ctx, errors) }),
      ...(onError && { onError: ({ error }) => onError(petStoreErrorOf(error), req) }),
    });
  };
}
