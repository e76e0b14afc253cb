import { createServer, type Server, type ServerOptions } from 'node:http';
import { stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createDomainStore, createWebhookAdmin, type Clock, type DomainStore, type UsageQuery } from '@petstore/core';
import {
  closeGracefully,
  createDnsCheck,
  createHttpHandler,
  createOutageLog,
  createOverloadGuard,
  createWebhookTransport,
  openPetStore,
  type OpenPetStore,
} from '@petstore/embed';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { openAdminChannel, type AdminChannel } from './admin-channel.js';
import { createCertificateAsk } from './certificate-ask.js';
import { absoluteDataDir, earlierDataFolder, noteDataFolder } from './data-folder.js';
import { startDomainRegistry, type DomainRegistry } from './domain-registry.js';
import { createObservability } from './observability.js';
import { tracingChoice } from './tracing.js';
import { release } from './release.js';
import { version } from './version.js';

/**
 * Socket time and size limits. A client must send its headers within 10 s; its body (at most 64 KiB, in at most 256
 * pieces) must follow within 10 s of them (`PETSTORE_BODY_TIMEOUT_MS`), else the handler answers 408
 * `request_timeout` and closes the connection (the 30 s `requestTimeout` is only a backstop), and a response it does
 * not take within 10 s (`PETSTORE_WRITE_TIMEOUT_MS`) closes its connection (both in @petstore/http's node adapter). Checked every second, so slow clients cannot hold sockets for Node's default
 * minutes. Idle keep-alive sockets close after 5 s: a proxy in front must use a shorter idle timeout. Headers above
 * 16 KiB get 431 (an API request with a bearer key needs well under 1 KiB).
 */
export const SOCKET_LIMITS = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 5_000,
  maxHeaderSize: 16 * 1024,
} satisfies ServerOptions);

/** A running service. */
export interface RunningServer {
  /** Base URL of the server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  server: Server;
  /** Base URL of the metrics listener (`GET /metrics`), when `PETSTORE_METRICS_PORT` is set. */
  metricsUrl?: string;
  service: OpenPetStore;
  /** The custom domains in the database (`petstore domains …`), and this instance's view of them. */
  domains: DomainStore;
  domainRegistry: DomainRegistry;
  /** A development key, created on the first start of an embedded database that never held a key; shown once. */
  developmentKey?: string;
  /**
   * Stops accepting connections; for `drainMs` answers requests on open connections with `Connection: close`;
   * then closes idle connections, lets in-flight requests finish (10 s at most) and closes the database.
   */
  close(): Promise<void>;
}

/** Thrown by {@link startServer} when its `signal` aborted before the listeners opened; everything it opened is closed. */
export class StoppedDuringStart extends Error {
  constructor() {
    super('Stopped during start-up, before any listener opened');
    this.name = 'StoppedDuringStart';
  }
}

/**
 * Opens the store and serves it on one port: `/v1`, `/trpc`, `/v1/openapi.json`, `/v1/docs`, `/healthz`, `/livez`.
 * With `signal` aborted before the listeners open, it closes what it opened and throws {@link StoppedDuringStart}.
 * @example const running = await startServer(loadConfig(process.env)); await running.close()
 */
export async function startServer(
  config: Config,
  options: { clock?: Clock; createDevelopmentKey?: boolean; logger?: Logger; signal?: AbortSignal } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: 'silent' });
  // Metrics are kept only when a listener serves them: without PETSTORE_METRICS_PORT nobody can read them, and no request
  // pays for a histogram or a timed statement, nor an idle process for the event loop's sampling.
  const observability = config.metricsPort === undefined ? undefined : createObservability({ logger });
  // Traced through the SDK a host registered before the service started (node --import), else not at all.
  const tracerProvider = tracingChoice();
  // A folder without PG_VERSION holds no database yet: this start makes one.
  const fresh = config.dataDirIsFolder && !(await stat(join(config.dataDir, 'PG_VERSION')).then(() => true, () => false));
  // Opening the store takes the embedded folder's lock (one process per folder) and closing it gives it up.
  const service = await openPetStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    apiKeys: config.apiKeys,
    rateLimitStore: config.rateLimitStore,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    // A fleet restarted during a Redis outage comes back serving 503 (and /healthz naming Redis) until Redis returns.
    onRedisUnreachable: (error) => logger.error({ dependency: 'redis', cause: error.message }, 'redis unavailable at start: answering 503 until it returns'),
    quota: config.quota,
    usage: { retentionDays: config.usageRetentionDays },
    webhooks: {
      ...config.webhooks,
      // Targets resolved by PETSTORE_DNS_SERVERS when set (at registration and at each connection), else the system's.
      transport: createWebhookTransport({ allowPrivate: config.webhooks.allowPrivate, servers: config.dnsServers }),
      // One line per attempt at debug; an endpoint disabled, or a target refused by the rule, at info.
      onAttempt: ({ refused, disabled, ...attempt }) => {
        if (disabled) logger.info({ webhook: attempt.endpointId }, 'webhook endpoint disabled after failing for 5 days');
        if (refused) logger.info({ ...attempt, refused }, 'webhook target refused');
        else logger.debug(attempt, 'webhook delivery attempt');
      },
      onError: (error) => logger.debug({ err: error }, 'webhook deliveries could not reach the database'),
    },
    release,
    metrics: observability?.metrics,
    tracerProvider,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let developmentKey: string | undefined;
  const dataDir = absoluteDataDir(config.dataDir);
  // An upgrade installed in another checkout, started without PETSTORE_DATA_DIR, opens that checkout's empty
  // `.petstore-data` while the data stays in the old one: said loudly, naming the old one, and no key made here.
  const earlier = config.dataDirIsFolder && config.dataDirIsDefault && fresh ? await earlierDataFolder(config.stateDir, dataDir).catch(() => undefined) : undefined;
  if (earlier) {
    logger.warn(
      { dataDir, earlierDataDir: earlier },
      `Opened an EMPTY data folder (${dataDir}: PETSTORE_DATA_DIR is unset, so the working directory's) while ${earlier}, ` +
        `where this service last ran, holds its keys and data. To serve them, stop and start again with PETSTORE_DATA_DIR=${earlier}`,
    );
  } else if (options.createDevelopmentKey && !config.databaseUrl && !(await service.store.apiKeys.everHeldAKey())) {
    // Only for a first try on the embedded database: a fleet on PostgreSQL would print one working key per instance
    // into its logs, and an operator who revokes every key in a leak must not find a new one printed at the restart.
    developmentKey = (await service.store.apiKeys.create({ plan: 'free', label: 'development' })).key;
  }
  if (config.dataDirIsFolder && (await service.store.apiKeys.everHeldAKey())) {
    await noteDataFolder(config.stateDir, dataDir).catch((error: unknown) =>
      logger.debug({ err: error }, 'Could not note the data folder (for the warning after an upgrade elsewhere)'),
    );
  }
  if (service.database.pool) observability?.watchPool(service.database.pool);
  observability?.watchDependencies(service.dependencies);
  observability?.watchWebhookBacklog(() => service.store.webhookBacklog());
  const check = config.platformHost ? createDnsCheck({ platformHost: config.platformHost, servers: config.dnsServers }) : undefined;
  const domains = createDomainStore(service.database.db, { schema: service.schema, check, ...(options.clock ? { clock: options.clock } : {}) });
  const domainRegistry = await startDomainRegistry({ domains, recheck: check !== undefined, logger });
  // An outage is two log lines (down, back with the count refused), not one line with a stack per 503.
  const outageLog = createOutageLog({ logger, probe: (dependency) => service.probe(dependency) });
  const overload = createOverloadGuard({
    maxConcurrent: config.maxConcurrentRequests,
    shedLagMs: config.shedLagMs,
    shedUtilization: config.shedUtilization,
    logger,
    metrics: observability?.metrics,
  });
  const handler = createHttpHandler(service.store, {
    publicUrl: config.publicUrl,
    stagingUrl: config.stagingUrl,
    trustProxy: config.trustProxy,
    redirects: config.redirects,
    domains: domainRegistry.current,
    cors: config.corsOrigins,
    version,
    dependencies: service.dependencies,
    // The service's own server writes each turn's responses together (measured: fewer client wake-ups under load).
    writeAtTurnEnd: true,
    // Request lines, fault lines (an outage as two lines), metrics (when served) and load shedding: the package's, turned on.
    logger,
    metrics: observability?.metrics,
    outageLog,
    overload,
    tracerProvider,
    bodyTimeoutMs: config.bodyTimeoutMs,
    writeTimeoutMs: config.writeTimeoutMs,
    lingerMs: config.lingerMs,
    healthCacheMs: config.healthCacheMs,
  });
  const server = createServer(SOCKET_LIMITS, handler);
  // The internal listener: metrics, and the TLS server's certificate ask for custom domains.
  const ask = createCertificateAsk(domains);
  const metricsServer =
    observability === undefined
      ? undefined
      : // The API port's socket limits: a slow or silent client holds no socket here either.
        createServer(SOCKET_LIMITS, (req, res) => {
          if (!ask(req, res)) observability.serveMetrics(req, res);
        });
  let admin: AdminChannel | undefined;
  try {
    // A stop asked for while the store opened: no listener opens, and what opened closes (saving what it holds).
    if (options.signal?.aborted) throw new StoppedDuringStart();
    await listen(server, config.port, config.host);
    // Loopback unless PETSTORE_METRICS_HOST says otherwise: HOST=0.0.0.0 does not make metrics public.
    if (metricsServer) await listen(metricsServer, config.metricsPort!, config.metricsHost);
    // The key tool's way in while the service holds the embedded folder (see admin-channel.ts).
    const { backup } = service.database;
    if (config.dataDirIsFolder && backup) {
      const keys = { ...service.store.apiKeys, deprecatedUsage: () => service.store.deprecatedUsage(), usage: (query?: UsageQuery) => service.store.usage(query) };
      const webhooks = createWebhookAdmin(service.database.db, { schema: service.schema });
      const target = { keys, backup, domains, onDomainsChanged: domainRegistry.refresh, webhooks };
      // A place someone else holds (a shared XDG_RUNTIME_DIR) costs the key tool its way in, never the API.
      admin = await openAdminChannel(config.dataDir, target, { runtimeDir: config.runtimeDir }).catch((error: unknown) => {
        logger.warn({ err: error }, 'No admin channel: the key tool cannot reach this service while it runs');
        return undefined;
      });
      for (const reason of admin?.refused ?? []) logger.warn({ reason }, 'Admin channel: a place was refused, the next one used');
    }
  } catch (error) {
    server.close();
    metricsServer?.close();
    domainRegistry.close();
    await service.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await closeGracefully(server, { drainMs: config.drainMs });
      overload.close();
      outageLog.close();
      domainRegistry.close();
      await admin?.close();
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      }
      await service.close();
    })());

  return {
    url: urlOf(server),
    server,
    service,
    domains,
    domainRegistry,
    ...(metricsServer ? { metricsUrl: urlOf(metricsServer) } : {}),
    ...(developmentKey ? { developmentKey } : {}),
    close,
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function urlOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
