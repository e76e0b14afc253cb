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
  /**
   * The release of the program serving (`1.4.0`), named in `/healthz`'s body, `{"status":"ok","version":"1.4.0"}`, so
   * a fleet's monitoring sees which instance runs what during a rolling upgrade. Unset: not named.
   */
  version?: string | undefined;
}

const OK = JSON.stringify({ status: 'ok' });

/**
 * The whole HTTP surface on the one pipeline: REST under `/v1` (with `openapi.json` and `/docs`), tRPC under `/trpc`,
 * `GET /healthz` (readiness: 200 while the database answers, with the `version` given, 503 when it does not) and
 * `GET /livez` (liveness).
 * @example const pipeline = createServicePipeline(store, { basePath: '/petstore' })
 */
export function createServicePipeline(store: PetStore, options: HandlerOptions = {}): Pipeline {
  const basePath = normalizeBasePath(options.basePath);
  // Health answers on any host, also once custom domains are managed (a load balancer asks by address).
  const edge = createEdge({ ...options, anyHostPaths: [`${basePath}/healthz`, `${basePath}/livez`] });
  const rest = createRestCodec({ prefix: '/v1', basePath, edge });
  const trpc = createTrpcCodec({ store, prefix: '/trpc', basePath, restPrefix: '/v1' });
  const healthy = options.version === undefined ? OK : JSON.stringify({ status: 'ok', version: options.version });
  const ready = async () =>
    (await store.isHealthy().catch(() => false)) ? jsonResponse(200, healthy) : errorResponse(new PetStoreError('unavailable'));
  return createPipeline({
    ...options,
    basePath,
    edge,
    store,
    codecs: [rest, trpc],
    resources: { '/healthz': ready, '/livez': () => jsonResponse(200, OK) },
  });
}
