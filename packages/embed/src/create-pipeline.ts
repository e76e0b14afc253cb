import { PetStoreError, type PetStore } from '@petstore/core';
import {
  createEdge,
  createPipeline,
  errorResponse,
  jsonResponse,
  normalizeBasePath,
  type Codec,
  type Pipeline,
  type PipelineResult,
  type StandardRequest,
  type SurfaceOptions,
} from '@petstore/http';
import { createRestCodec, type OpenApiContact } from '@petstore/rest';
import { checkPublishedAt } from './published-at.js';
import { HEALTH_CACHE_MS, readiness } from './readiness.js';
import { loadTrpcCodec, TRPC_PREFIX } from './trpc-codec.js';
import { embedVersion } from './version.js';

export type { HostRedirect } from '@petstore/http';
export type { OpenApiContact } from '@petstore/rest';

/** Where the service is published, where it is mounted, whom it trusts, and who hears of errors. */
export interface HandlerOptions extends SurfaceOptions {
  /**
   * The path the whole surface is mounted under (`/petstore`): `${basePath}/v1`, `${basePath}/trpc`,
   * `${basePath}/healthz`; links, the OpenAPI `servers` and the docs page follow it. Default ''. A `publicUrl` given
   * with it must end in `${basePath}/v1` (else the handler is refused when made, with the address to give).
   */
  basePath?: string | undefined;
  /**
   * The release of the program serving (`1.4.0`), named in `/healthz`'s body (`{"status":"ok","version":"1.4.0",…}`), so
   * a fleet's monitoring sees which instance runs what during a rolling upgrade. Default: the release of
   * `@petstore/embed`.
   */
  version?: string | undefined;
  /**
   * Who answers questions about the API, named by the OpenAPI document as `info.contact`
   * (`{ name: 'Acme API support', url: 'https://acme.example/support' }`): the operator's own. Default: none.
   */
  contact?: OpenApiContact | undefined;
  /**
   * What `/healthz` checks, by name: every dependency a request needs, each answering whether it is up. Default: the
   * database (`store.isHealthy`); `openPetStore`'s `dependencies` adds Redis when it is the quota store.
   */
  dependencies?: Readonly<Record<string, () => Promise<boolean>>> | undefined;
  /**
   * How long, in ms, `/healthz` answers from its last check of the dependencies, measured on the store's clock from
   * when that check ended. One check runs at a time, whatever the number of requests, so a flood costs at most one
   * check of each dependency per this time. Default 1000; 0 reuses nothing, but still runs one check at a time.
   */
  healthCacheMs?: number | undefined;
}

/** The APIs' prefixes, relative to the base path: every path under them is the API's. */
export const API_PREFIXES: readonly string[] = Object.freeze(['/v1', TRPC_PREFIX]);
/** The probes, relative to the base path. */
export const PROBE_PATHS: readonly string[] = Object.freeze(['/healthz', '/livez']);
/** The paths the surface serves, relative to its base path: the codecs' prefixes and the probes. */
export const SURFACE_PATHS: readonly string[] = Object.freeze([...API_PREFIXES, ...PROBE_PATHS]);

const OK = JSON.stringify({ status: 'ok' });

const WEDGED = 'The process refuses every request although it is not overloaded: restart it.';

/**
 * The whole HTTP surface on the one pipeline: REST under `/v1` (with `openapi.json` and `/docs`), tRPC under `/trpc`,
 * `GET /healthz` (readiness: 200 while every dependency answers, with the release, 503 naming the ones that do not;
 * counted against the client's address like a request without a key, its check shared and reused, see readiness.ts)
 * and `GET /livez` (liveness: 503 while `live` says the process is wedged; counted against nothing, as balancers ask
 * it often from one address and it costs no dependency). tRPC's codec is loaded when the pipeline
 * is made (`@trpc/server` is an optional peer): requests that come before it is ready wait for it.
 * @example const pipeline = createServicePipeline(store, { basePath: '/petstore' })
 */
export function createServicePipeline(store: PetStore, options: HandlerOptions = {}, live: () => boolean = () => true): Pipeline {
  const basePath = normalizeBasePath(options.basePath);
  checkPublishedAt(options, basePath);
  // Health answers on any host, also once custom domains are managed (a load balancer asks by address).
  const edge = createEdge({ ...options, anyHostPaths: [`${basePath}/healthz`, `${basePath}/livez`] });
  const rest = createRestCodec({ prefix: '/v1', basePath, edge, contact: options.contact, store });
  const dependencies = options.dependencies ?? { database: () => store.isHealthy() };
  const ready = readiness(store, dependencies, options.version ?? embedVersion, options.healthCacheMs ?? HEALTH_CACHE_MS);
  // The tRPC codec comes when its module has loaded; until then requests wait for it (see `handle`), so the codec
  // below always has it. The pipeline itself is made now: a mistake in the options is thrown here, not at a request.
  let trpc: Codec | undefined;
  const loading = loadTrpcCodec(store, basePath).then((codec) => {
    trpc = codec;
  });
  // A failure other than a missing package is each request's to report (a 500 through the host's error handling).
  loading.catch(() => {});
  const loaded = (): Codec => trpc!;
  const lazyTrpc: Codec = {
    prefix: TRPC_PREFIX,
    match: (request, path, query, ctx) => loaded().match(request, path, query, ctx),
    allows: (path, query) => loaded().allows(path, query),
    encode: (plan, results, ctx) => loaded().encode(plan, results, ctx),
    encodeError: (error, ctx) => loaded().encodeError(error, ctx),
  };
  const pipeline = createPipeline({
    ...options,
    basePath,
    edge,
    store,
    codecs: [rest, lazyTrpc],
    resources: {
      '/healthz': ready,
      '/livez': () => (live() ? jsonResponse(200, OK) : errorResponse(new PetStoreError('unavailable', WEDGED))),
    },
  });
  return {
    edge: pipeline.edge,
    handle: (request: StandardRequest, handleOptions?: { fallThrough?: boolean }): Promise<PipelineResult> =>
      trpc ? pipeline.handle(request, handleOptions) : loading.then(() => pipeline.handle(request, handleOptions)),
    contextOf: (request: StandardRequest) => pipeline.contextOf(request),
    rankOf: (token: string | undefined) => pipeline.rankOf(token),
  };
}
