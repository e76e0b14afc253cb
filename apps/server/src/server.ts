import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@petstore/core';
import { createHttpHandler, openPetStore, type OpenPetStore } from '@petstore/embed';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { openAdminChannel, type AdminChannel } from './admin-channel.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { createObservability } from './observability.js';

/** A running service. */
export interface RunningServer {
  /** Base URL of the server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  server: Server;
  /** Base URL of the metrics listener (`GET /metrics`), when `PETSTORE_METRICS_PORT` is set. */
  metricsUrl?: string;
  service: OpenPetStore;
  /** A development key created because no key existed; shown once. */
  developmentKey?: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the store and serves it on one port: `/v1`, `/trpc`, `/v1/openapi.json`, `/v1/docs`, `/healthz`.
 * @example const running = await startServer(loadConfig(process.env)); await running.close()
 */
export async function startServer(
  config: Config,
  options: { clock?: Clock; createDevelopmentKey?: boolean; logger?: Logger } = {},
): Promise<RunningServer> {
  const observability = createObservability({ logger: options.logger ?? pino({ level: 'silent' }) });
  const releaseLock = config.dataDirIsFolder ? await acquireDataDirLock(config.dataDir) : async () => {};
  let service: OpenPetStore;
  try {
    service = await openPetStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      apiKeys: config.apiKeys,
      rateLimitStore: config.rateLimitStore,
      redisUrl: config.redisUrl,
      redisKeyPrefix: config.redisKeyPrefix,
      quota: config.quota,
      onRequestCounted: observability.onRequestCounted,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  } catch (error) {
    await releaseLock();
    throw error;
  }
  let developmentKey: string | undefined;
  if (options.createDevelopmentKey && (await service.store.apiKeys.countActive()) === 0) {
    developmentKey = (await service.store.apiKeys.create({ plan: 'free', label: 'development' })).key;
  }
  if (service.database.pool) observability.watchPool(service.database.pool);
  const handler = createHttpHandler(service.store, {
    publicUrl: config.publicUrl,
    stagingUrl: config.stagingUrl,
    trustProxy: config.trustProxy,
    redirects: config.redirects,
    onError: observability.onError,
  });
  const serve = observability.wrap(handler);
  let stopping = false;
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    // Once stopping, every response closes its connection, so busy keep-alive clients drain instead of holding on.
    if (stopping) res.setHeader('connection', 'close');
    serve(req, res);
  });
  const metricsServer = config.metricsPort === undefined ? undefined : createServer(observability.serveMetrics);
  let admin: AdminChannel | undefined;
  try {
    await listen(server, config.port, config.host);
    if (metricsServer) await listen(metricsServer, config.metricsPort!, config.host);
    // The key tool's way in while the service holds the embedded folder (see admin-channel.ts).
    const { backup } = service.database;
    if (config.dataDirIsFolder && backup) {
      const keys = { ...service.store.apiKeys, deprecatedUsage: () => service.store.deprecatedUsage() };
      admin = await openAdminChannel(config.dataDir, { keys, backup });
    }
  } catch (error) {
    server.close();
    metricsServer?.close();
    await service.close();
    await releaseLock();
    throw error;
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
      await closed;
      clearTimeout(force);
      await admin?.close();
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      }
      await service.close();
      await releaseLock();
    })());

  return {
    url: urlOf(server),
    server,
    service,
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
