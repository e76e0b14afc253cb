import type { IncomingMessage } from 'node:http';
import type { PetStore } from '@petstore/core';
import { normalizeBasePath, toNodeHandler, type NodeAdapterOptions, type NodeHandler } from '@petstore/http';
import { createServicePipeline, type HandlerOptions } from './create-pipeline.js';

/**
 * Options of the `node:http` handler. The durations (`bodyTimeoutMs` 10 s, `writeTimeoutMs` 10 s, `lingerMs` 1 s) and
 * bound (`maxBodyPieces` 256) have production defaults; tests pass milliseconds.
 */
export interface HttpHandlerOptions
  extends HandlerOptions,
    Pick<NodeAdapterOptions, 'bodyTimeoutMs' | 'maxBodyPieces' | 'writeTimeoutMs' | 'lingerMs'> {
  /**
   * Write the responses of one event-loop turn together when it ends: fewer wake-ups of busy clients (the service's
   * own server turns it on). Default off: each response is written when it is ready.
   */
  writeAtTurnEnd?: boolean | undefined;
  /**
   * Load shedding (`createOverloadGuard({ maxConcurrent, shedLagMs, logger, basePath })`): while the process is
   * overloaded as measured, or past its memory guard, a request gets 503 `unavailable` with `Retry-After: 1` at once;
   * health checks never. `/livez` answers 503 while it says the process is wedged. Close it with the server.
   */
  overload?: NodeAdapterOptions['overload'];
}

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`) || prefix === '';

/**
 * The error an Express host gets (through `next`) when it mounts the handler where its `basePath` cannot be: every
 * path of the surface would otherwise go on to the host's 404 without a word.
 */
function mountedElsewhere(mount: string, basePath: string) {
  return new Error(
    `The Pet Store handler is mounted at ${mount} but serves under basePath ${JSON.stringify(basePath)}, which no ` +
      `request through that mount can reach: give createHttpHandler(store, { basePath: '${mount}' }).`,
  );
}

/**
 * The whole HTTP surface as one `node:http` handler, for `http.createServer`, Express (`app.use(path, handler)` with
 * `basePath` the same path: other paths under it go on to `next`; a `basePath` the mount cannot reach is an error
 * passed to `next`) and Fastify (see `createFastifyPlugin`).
 * @example http.createServer(createHttpHandler(store, { publicUrl: 'https://api.example.com/v1' })).listen(3000)
 */
export function createHttpHandler(store: PetStore, options: HttpHandlerOptions = {}): NodeHandler {
  const basePath = normalizeBasePath(options.basePath);
  const { overload, writeAtTurnEnd, bodyTimeoutMs, maxBodyPieces, writeTimeoutMs, lingerMs } = options;
  const live = overload?.live === undefined ? undefined : () => overload.live !== false;
  const handler = toNodeHandler(createServicePipeline(store, options, live), {
    writeAtTurnEnd,
    overload,
    bodyTimeoutMs,
    maxBodyPieces,
    writeTimeoutMs,
    lingerMs,
  });
  const mounted: NodeHandler = Object.assign(
    (req: IncomingMessage & { baseUrl?: unknown }, res: Parameters<NodeHandler>[1], next?: (err?: unknown) => void) => {
      // Express's documented `baseUrl`: the path the handler was mounted at.
      const mount = req.baseUrl;
      if (next && typeof mount === 'string' && !isUnder(basePath, mount)) return next(mountedElsewhere(mount, basePath));
      handler(req, res, next);
    },
    { contextOf: handler.contextOf },
  );
  return mounted;
}
