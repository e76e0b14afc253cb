import type { Server } from 'node:http';
import net from 'node:net';

/** How {@link closeGracefully} drains a server. */
export interface GracefulCloseOptions {
  /** How long requests on open connections are still answered (each with `Connection: close`), in ms. */
  drainMs: number;
  /** After the drain period, how long requests still running get before their sockets are closed. Default 10 s. */
  forceAfterMs?: number | undefined;
}

/**
 * Drains a `node:http` server, for a host's SIGTERM handler: stops listening; for `drainMs` answers the requests on
 * open connections with `Connection: close`, so busy keep-alive clients move on instead of holding on; then closes
 * idle connections, and closes the rest `forceAfterMs` later. (`server.close()` alone would also reset idle
 * keep-alive sockets at once, and with them a request a client has just sent on one.) Resolves once every
 * connection is closed. Installs no signal handler: the host decides when.
 * @example process.once('SIGTERM', () => closeGracefully(server, { drainMs: 5_000 }).then(() => store.close()))
 */
export async function closeGracefully(server: Server, options: GracefulCloseOptions): Promise<void> {
  const { drainMs, forceAfterMs = 10_000 } = options;
  server.prependListener('request', (_req, res) => res.setHeader('connection', 'close'));
  const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
  const drained = setTimeout(() => server.closeIdleConnections(), drainMs).unref();
  const force = setTimeout(() => server.closeAllConnections(), drainMs + forceAfterMs).unref();
  await closed;
  clearTimeout(drained);
  clearTimeout(force);
}
