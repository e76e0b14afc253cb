import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { isDatabaseUnavailable, PetStoreError } from '@petstore/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fromFetchRequest } from './fetch/fetch-request.js';
import { fromNodeRequest } from './node/node-request.js';
import { BODY_LIMIT } from './read-json-body.js';

// A body that breaks off is classified where it breaks, on the request's own stream: the client's 400, whatever the
// stream's error was (Node's `ECONNRESET` 'aborted' would otherwise read as a lost database connection).

let server: Server | undefined;
afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A server whose handler reads each request's body as the pipeline does; answers the port and each read's failure. */
async function reading(beforeRead: (req: IncomingMessage) => Promise<unknown> = async () => {}) {
  const failures: unknown[] = [];
  let failed!: () => void;
  const first = new Promise<void>((resolve) => (failed = resolve));
  server = createServer(async (req, res) => {
    await beforeRead(req);
    // A read that only ended at its deadline would be a 408, not the 400 expected.
    const request = fromNodeRequest(req, res, { bodyTimeoutMs: 5_000 });
    await request.readBody(BODY_LIMIT, () => new PetStoreError('payload_too_large')).then(
      () => failures.push('read whole'),
      (error: unknown) => failures.push(error),
    );
    failed();
    res.destroy();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, failures, first };
}

/** Sends `head`, then does `then` once the server has taken it in. */
function send(port: number, head: string, then: (socket: Socket) => void) {
  const socket = connect(port, '127.0.0.1', () => socket.write(head, () => setTimeout(() => then(socket), 20)));
  socket.on('error', () => {});
  return socket;
}

const post = (framing: string) => `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n`;

const expectBrokenOff = (failure: unknown) => {
  expect(failure).toBeInstanceOf(PetStoreError);
  expect(failure).toMatchObject({ code: 'invalid_request', status: 400, message: 'The request body broke off before its end.' });
  // Nothing downstream can take it for the database's outage.
  expect(isDatabaseUnavailable(failure)).toBe(false);
};

describe('a node request body that breaks off', () => {
  it('is a 400 invalid_request when its connection is reset half way', async () => {
    const { port, failures, first } = await reading();
    send(port, post('Content-Length: 40\r\n') + '{"name":"Rex"', (socket) => socket.resetAndDestroy());
    await first;
    expectBrokenOff(failures[0]);
  });

  it('is a 400 invalid_request when a chunk size overflows, or is not a number', async () => {
    for (const size of ['ffffffffffffffffffff', 'zz']) {
      const { port, failures, first } = await reading();
      send(port, `${post('Transfer-Encoding: chunked\r\n')}4\r\n{"na\r\n`, (socket) => socket.write(`${size}\r\n`));
      await first;
      expectBrokenOff(failures[0]);
      server!.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });

  it('is a 400 invalid_request at once when its connection was gone before the read began, not a 408 at its deadline', async () => {
    // The read begins only once the reset has closed the request (as when it comes while the key is looked up).
    const { port, failures, first } = await reading(async (req) => {
      req.on('error', () => {});
      if (!req.destroyed) await new Promise((resolve) => req.once('close', resolve));
    });
    send(port, post('Content-Length: 40\r\n') + '{"name":"Rex"', (socket) => socket.resetAndDestroy());
    await first;
    expectBrokenOff(failures[0]);
  });
});

describe('a Fetch request body that breaks off', () => {
  it('is a 400 invalid_request, whatever error the runtime gives its stream', async () => {
    const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"Rex"'));
      },
      pull(controller) {
        controller.error(reset);
      },
    });
    const request = fromFetchRequest(
      new Request('http://127.0.0.1/v1/pets', { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit),
    );
    const failure = await request.readBody(BODY_LIMIT, () => new PetStoreError('payload_too_large')).catch((error: unknown) => error);
    expectBrokenOff(failure);
    expect((failure as Error).cause).toBe(reset);
  });
});
