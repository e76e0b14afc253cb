import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a server that can lose answers: while `drops` is above 0, a connection whose request
 * matches `pattern` is closed as soon as the server's answer starts, without passing it on. The server has done the
 * work; the client sees a lost connection. Real sockets, real fault.
 * @example const proxy = await droppingProxy(service.url, /^POST \/v1\/pets /); proxy.drops = 1
 */
export async function droppingProxy(target: string, pattern: RegExp) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const state = { drops: 0, dropped: 0 };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let armed = false;
    client.on('data', (chunk: Buffer) => {
      if (state.drops > 0 && pattern.test(chunk.toString('latin1'))) {
        state.drops--;
        armed = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (armed) {
        state.dropped++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    base: `${url}/v1`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
