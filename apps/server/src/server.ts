import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@petstore/core';
import { createHttpHandler, openPetStore, type OpenPetStore } from '@petstore/embed';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { createObservability } from './observability.js';

/** A running service. */
export interface RunningServer {
  /** Base URL of the server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  server: Server;
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
  const observability = createObservability({ logger: options.logger ?? pino({ level: 'silent' }), metrics: config.metrics });
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
  const serve = observability.wrap(handler, service.store.recallKey);
  let stopping = false;
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    // Once stopping, every response closes its connection, so busy keep-alive clients drain instead of holding on.
    if (stopping) res.setHeader('connection', 'close');
    serve(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
      await closed;
      clearTimeout(force);
      await service.close();
      await releaseLock();
    })());

  return { url: `http://${host}:${port}`, server, service, ...(developmentKey ? { developmentKey } : {}), close };
}
