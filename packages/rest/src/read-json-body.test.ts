import { Agent, request } from 'node:http';
import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startRestServer, type RestServer } from './testing/rest-server.js';

describe.each(testDatabases)('reading the request body on $name', (database) => {
  let api: RestServer;
  beforeAll(async () => {
    api = await startRestServer(database);
  });
  afterAll(() => api.close());

  const post = (body: RequestInit['body'], headers: Record<string, string> = {}, auth = api.auth) =>
    fetch(`${api.base}/pets`, {
      method: 'POST',
      headers: { ...auth, ...headers },
      ...(body === undefined ? {} : { body }),
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  const json = { 'content-type': 'application/json' };
  const large = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });

  it('answers 413 payload_too_large to a 70 KiB body and closes the connection', async () => {
    const response = await post(large, json);
    await expectError(response, 413, 'payload_too_large');
    expect(response.headers.get('connection')).toBe('close');
  });

  it('answers 413 to a chunked body once it passes 64 KiB', async () => {
    const bytes = new TextEncoder().encode(large);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.subarray(i, i + 8192));
        controller.close();
      },
    });
    const response = await post(stream, json);
    await expectError(response, 413, 'payload_too_large');
    expect(response.headers.get('connection')).toBe('close');
  });

  it('answers 413 before a client has finished streaming an oversized body', async () => {
    const url = new URL(`${api.base}/pets`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { ...api.auth, ...json, 'transfer-encoding': 'chunked' } });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write(Buffer.alloc(80 * 1024, 0x20));
      // The request is never ended: the answer must not wait for the rest of the body.
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('accepts a body of exactly 64 KiB as far as size goes', async () => {
    const text = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const padded = text + ' '.repeat(65_536 - text.length);
    expect((await post(padded, json)).status).toBe(201);
    await expectError(await post(`${padded} `, json), 413, 'payload_too_large');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['no Content-Type', undefined],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['a charset other than UTF-8', 'application/json; charset=iso-8859-1'],
    ['application/jsonx', 'application/jsonx'],
  ])('answers 415 unsupported_media_type to a body sent as %s', async (_label, type) => {
    const body = new TextEncoder().encode(JSON.stringify({ name: 'Rex', categoryId: 1 }));
    await expectError(await post(body, type ? { 'content-type': type } : {}), 415, 'unsupported_media_type');
  });

  it('answers 415 to a compressed body', async () => {
    const response = await post('{}', { ...json, 'content-encoding': 'gzip' });
    await expectError(response, 415, 'unsupported_media_type');
  });

  it.each(['application/json; charset=UTF-8', 'Application/JSON', 'application/json;charset="utf-8"'])(
    'accepts the media type %s',
    async (type) => {
      expect((await post(JSON.stringify({ name: 'Rex', categoryId: 1 }), { 'content-type': type })).status).toBe(201);
    },
  );

  it.each(['{"name": "Rex",', '{name: "Rex"}', "{'a': 1}", ' '])('answers 400 malformed_json to %j', async (body) => {
    await expectError(await post(body, json), 400, 'malformed_json');
  });

  it('answers 400 malformed_json to a body that is not UTF-8', async () => {
    await expectError(await post(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), json), 400, 'malformed_json');
  });

  it('answers 400 invalid_request when the body is missing, whatever the Content-Type', async () => {
    await expectError(await post(undefined, json), 400, 'invalid_request');
    await expectError(await post(undefined), 400, 'invalid_request');
    await expectError(await post('', json), 400, 'invalid_request');
  });

  it('answers 400 invalid_request to JSON that is not an object', async () => {
    for (const body of ['null', '[]', '"Rex"', '5']) await expectError(await post(body, json), 400, 'invalid_request');
  });

  it('answers 401 before looking at the body: size, media type and syntax', async () => {
    await expectError(await post(large, json, {}), 401, 'missing_api_key');
    await expectError(await post('{}', { 'content-type': 'text/plain' }, {}), 401, 'missing_api_key');
    await expectError(await post('{nope', json, { authorization: 'Bearer not-a-real-key-at-all' }), 401, 'invalid_api_key');
  });

  it('answers a small unauthenticated body from its headers and closes its connection; the next request is served on a new one', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; reused: boolean; connection: string | undefined }>((resolve, reject) => {
        const req = request(`${api.base}/pets`, { method: 'POST', agent, headers: { ...json, ...headers } });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end('{"name":"Rex","categoryId":1}');
      });
    try {
      expect(await send({})).toEqual({ status: 401, reused: false, connection: 'close' });
      expect(await send(api.auth)).toEqual({ status: 201, reused: false, connection: 'keep-alive' });
      expect(await send(api.auth)).toEqual({ status: 201, reused: true, connection: 'keep-alive' });
    } finally {
      agent.destroy();
    }
  });
});
