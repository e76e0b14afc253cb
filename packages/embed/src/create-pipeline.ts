import { PetStoreError, type PetStore } from '@petstore/core';
import {
  createEdge,
  createPipeline,
  errorResponse,
  jsonResponse,
  normalizeBasePath,
  type Pipeline,
  type RequestContext,
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
   * The release of the program serving (`1.4.0`), named in `/healthz`'s body (`{"status":"ok","version":"1.4.0",…}`), so
   * a fleet's monitoring sees which instance runs what during a rolling upgrade. Unset: not named.
   */
  version?: string | undefined;
  /**
   * What `/healthz` checks, by name: every dependency a request needs, each answering whether it is up. Default: the
   * database (`store.isHealthy`); `openPetStore`'s `dependencies` adds Redis when it is the quota store.
   */
  dependencies?: Readonly<Record<string, () => Promise<boolean>>> | undefined;
}

const OK = JSON.stringify({ status: 'ok' });

const WEDGED = 'The process refuses every request although it is not overloaded: restart it.';

/**
 * Readiness: 200 naming the release (when given) and what was checked, or 503 `unavailable` naming what is down (for
 * monitoring and alerts).
 */
function readiness(dependencies: Readonly<Record<string, () => Promise<boolean>>>, version: string | undefined) {
  const names = Object.keys(dependencies);
  const checks = Object.values(dependencies);
  const healthy = JSON.stringify({
    status: 'ok',
    ...(version === undefined ? {} : { version }),
    checks: Object.fromEntries(names.map((name) => [name, 'ok'])),
  });
  return async (ctx: RequestContext) => {
    const up = await Promise.all(checks.map((check) => check().catch(() => false)));
    const down = names.filter((_, i) => !up[i]);
    if (down.length === 0) return jsonResponse(200, healthy);
    ctx.unavailable = down[0] === 'redis' ? 'redis' : 'database';
    const message = `The service is temporarily unavailable: ${down.join(' and ')} cannot be reached.`;
    const details = down.map((name) => ({ path: name, message: `${name} cannot be reached` }));
    return errorResponse(new PetStoreError('unavailable', message, { details, meta: { retryAfter: 1 } }));
  };
}

/**
 * The whole HTTP surface on the one pipeline: REST under `/v1` (with `openapi.json` and `/docs`), tRPC under `/trpc`,
 * `GET /healthz` (readiness: 200 while every dependency answers, with the `version` given, 503 naming the ones that do
 * not) and `GET /livez` (liveness: 503 while `live` says the process is wedged).
 * @example const pipeline = createServicePipeline(store, { basePath: '/petstore' })
 */
export function createServicePipeline(store: PetStore, options: HandlerOptions = {}, live: () => boolean = () => true): Pipeline {
  const basePath = normalizeBasePath(options.basePath);
  // Health answers on any host, also once custom domains are managed (a load balancer asks by address).
  const edge = createEdge({ ...options, anyHostPaths: [`${basePath}/healthz`, `${basePath}/livez`] });
  const rest = createRestCodec({ prefix: '/v1', basePath, edge, store });
  const trpc = createTrpcCodec({ store, prefix: '/trpc', basePath, restPrefix: '/v1' });
  const ready = readiness(options.dependencies ?? { database: () => store.isHealthy() }, options.version);
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
