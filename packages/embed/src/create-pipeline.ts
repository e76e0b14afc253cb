import { PetStoreError, type PetStore } from '@petstore/core';
import {
  createEdge,
  createPipeline,
  errorResponse,
  jsonResponse,
  normalizeBasePath,
  type Pipeline,
  type SurfaceOptions,
} from '@petstore/http';
import { createRestCodec } from '@petstore/rest';
import { createTrpcCodec } from '@petstore/trpc';

export type { HostRedirect } from '@petstore/http';

/** Where the service is published, where it is mounted, whom it trusts, and who hears of errors. */
export interface HandlerOptions extends SurfaceOptions {
  /**
   * The path the whole surface is mounted under (`/petstore`): `${basePath}/v1`, `${basePath}/trpc`,
   * `${basePath}/healthz`; links, the OpenAPI `servers` and the docs page follow it. Default ''.
   */
  basePath?: string | undefined;
}

const OK = JSON.stringify({ status: 'ok' });

const WEDGED = 'The process refuses every request although it is not overloaded: restart it.';

/**
 * The whole HTTP surface on the one pipeline: REST under `/v1` (with `openapi.json` and `/docs`), tRPC under `/trpc`,
 * `GET /healthz` (readiness: 200 while the database answers, 503 when it does not) and `GET /livez` (liveness: 503
 * while `live` says the process is wedged).
 * @example const pipeline = createServicePipeline(store, { basePath: '/petstore' })
 */
export function createServicePipeline(store: PetStore, options: HandlerOptions = {}, live: () => boolean = () => true): Pipeline {
  const basePath = normalizeBasePath(options.basePath);
  // Health answers on any host, also once custom domains are managed (a load balancer asks by address).
  const edge = createEdge({ ...options, anyHostPaths: [`${basePath}/healthz`, `${basePath}/livez`] });
  const rest = createRestCodec({ prefix: '/v1', basePath, edge });
  const trpc = createTrpcCodec({ store, prefix: '/trpc', basePath, restPrefix: '/v1' });
  const ready = async () =>
    (await store.isHealthy().catch(() => false)) ? jsonResponse(200, OK) : errorResponse(new PetStoreError('unavailable'));
  return createPipeline({
    ...options,
    basePath,
    edge,
    store,
    codecs: [rest, trpc],
    resources: {
      '/healthz': ready,
      '/livez': () => (live() ? jsonResponse(200, OK) : errorResponse(new PetStoreError('unavailable', WEDGED))),
    },
  });
}
