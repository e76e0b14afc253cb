import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on a free port of 127.0.0.1. */
export interface Listening {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts a real `node:http` server on port 0 at 127.0.0.1.
 * @example const { url, close } = await listen(handler)
 */
export async function listen(listener: RequestListener): Promise<Listening> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
