import type { PetStore } from '@petstore/core';
import { toNodeHandler, type NodeAdapterOptions, type NodeHandler } from '@petstore/http';
import { createServicePipeline, type HandlerOptions } from './create-pipeline.js';

/** Options of the `node:http` handler. */
export interface HttpHandlerOptions extends HandlerOptions {
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

/**
 * The whole HTTP surface as one `node:http` handler, for `http.createServer`, Express (`app.use(handler)`: paths it
 * does not serve go on to `next`) and Fastify (the raw request and reply).
 * @example http.createServer(createHttpHandler(store, { publicUrl: 'https://api.example.com/v1' })).listen(3000)
 */
export function createHttpHandler(store: PetStore, options: HttpHandlerOptions = {}): NodeHandler {
  const { overload } = options;
  const live = overload?.live === undefined ? undefined : () => overload.live !== false;
  return toNodeHandler(createServicePipeline(store, options, live), { writeAtTurnEnd: options.writeAtTurnEnd, overload });
}
