import { once } from 'node:events';
import { createServer, request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import { BODY_TIMEOUT_MS } from '@petstore/http';
import { closeGracefully, createFetchHandler, createHttpHandler, createOverloadGuard, openPetStore, type OpenPetStore } from './index.js';

const KEY = 'lifecycle-test-key-0123456789';

describe("a host's load shedding and drain", () => {
  let service: OpenPetStore;
  beforeAll(async () => {
    service = await openPetStore({ dataDir: 'memory://', apiKeys: [{ key: KEY, plan: 'pro' }] });
  });
  afterAll(() => service.close());

  it('sheds requests past maxConcurrent with 503 and Retry-After, but never the health checks under its base path', async () => {
    const warnings: unknown[] = [];
    const overload = createOverloadGuard({ maxConcurrent: 1, shedLagMs: 0, basePath: '/petstore', logger: { warn: (fields) => void warnings.push(fields) } });
    const server = createServer(createHttpHandler(service.store, { basePath: '/petstore', overload }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}/petstore`;
    // One request in flight: its body is announced and not yet sent.
    const slow = connect(port, '127.0.0.1');
    await once(slow, 'connect');
    const body = JSON.stringify({ name: 'Slow', categoryId: 1 });
    slow.write(`POST /petstore/v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    try {
      for (let i = 0; i < 50 && overload.inFlight === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(overload.inFlight).toBe(1);
      const shed = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('1');
      expect(await shed.json()).toMatchObject({ code: 'unavailable', status: 503 });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      // The episode's first line; a second ('no longer overloaded') follows once a second passes without refusals.
      expect(warnings[0]).toEqual(expect.objectContaining({ reason: 'requests in flight', maxConcurrent: 1 }));
      const answered = once(slow, 'data');
      slow.write(body);
      expect(String((await answered)[0])).toMatch(/^HTTP\/1\.1 201/);
    } finally {
      slow.destroy();
      overload.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('gives back the slot of every request whose connection dies, pipelined ones included, so four connections cannot wedge it', async () => {
    const overload = createOverloadGuard({ maxConcurrent: 8, shedLagMs: 0 });
    const server = createServer(createHttpHandler(service.store, { overload }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      // The reproduction of the security review: a health check, 20 pipelined requests, and a reset, on 4 connections.
      for (let round = 0; round < 5; round++) {
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            const socket = connect(port, '127.0.0.1');
            socket.on('error', () => {});
            await once(socket, 'connect');
            socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20));
            socket.resetAndDestroy();
            await once(socket, 'close');
          }),
        );
      }
      for (let i = 0; i < 100 && overload.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(overload.inFlight).toBe(0);
      const served = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(served.status).toBe(200);
    } finally {
      overload.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers /livez 503 while every slot is held and none is given back, and 200 again once one is', async () => {
    const overload = createOverloadGuard({ maxConcurrent: 1, shedLagMs: 0, wedgedAfterMs: 300 });
    const server = createServer(createHttpHandler(service.store, { overload }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    // The one slot is held by a request whose body has not come yet.
    const held = connect(port, '127.0.0.1');
    await once(held, 'connect');
    const body = JSON.stringify({ name: 'Held', categoryId: 1 });
    held.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    try {
      for (let i = 0; i < 50 && overload.inFlight === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(503);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const wedged = await fetch(`${base}/livez`);
      expect(wedged.status).toBe(503);
      expect(await wedged.json()).toMatchObject({ code: 'unavailable', status: 503 });
      const answered = once(held, 'data');
      held.write(body);
      expect(String((await answered)[0])).toMatch(/^HTTP\/1\.1 201/);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
    } finally {
      held.destroy();
      overload.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('gives a body 10 s from its headers in a Fetch host too, then answers 408 request_timeout', { timeout: 30_000 }, async () => {
    const handler = createFetchHandler(service.store);
    const server = serve({ fetch: (request) => handler(request, { address: '192.0.2.8' }), port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    const startedAt = Date.now();
    socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{`);
    const drip = setInterval(() => socket.write(' '), 1_000);
    try {
      let answer = '';
      socket.setEncoding('utf8');
      while (!answer.includes('}')) answer += String((await once(socket, 'data'))[0]);
      expect(answer, answer).toMatch(/^HTTP\/1\.1 408 /s);
      expect(JSON.parse(answer.slice(answer.indexOf('{')))).toMatchObject({ code: 'request_timeout', status: 408 });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    } finally {
      clearInterval(drip);
      socket.destroy();
      server.close();
    }
  });

  it('drains: requests on open connections are answered with Connection: close, then the server closes', async () => {
    const server = createServer(createHttpHandler(service.store));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        httpRequest({ port, host: '127.0.0.1', path: '/livez', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        }).on('error', reject).end();
      });
    try {
      expect(await get()).toEqual({ status: 200, connection: 'keep-alive' });
      let closed = false;
      const draining = closeGracefully(server, { drainMs: 300 }).then(() => (closed = true));
      expect(await get()).toEqual({ status: 200, connection: 'close' });
      await expect(fetch(`http://127.0.0.1:${port}/livez`)).rejects.toThrow();
      await draining;
      expect(closed).toBe(true);
    } finally {
      agent.destroy();
      server.closeAllConnections();
    }
  });
});
