import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { ENTERPRISE_ENTRY, ENTERPRISE_KEY, expectServed, startLegitimateClient } from './legitimate-client.js';

/**
 * A create whose chunked body is 100 KiB, written in 4 KiB chunks a few ms apart as a client on a real network would:
 * it is still writing when the answer comes. Settles with the status, or the socket error.
 */
function oversizedCreate(url: string): Promise<number | string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const req = request(
      { hostname, port, method: 'POST', path: '/v1/pets', agent: false, headers: { authorization: `Bearer ${ENTERPRISE_KEY}`, 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(res.statusCode === 413 && JSON.parse(body).code === 'payload_too_large' ? 413 : `${res.statusCode} ${body}`));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    const chunk = Buffer.alloc(4_096, 0x20);
    let written = 0;
    const writeMore = () => {
      if (req.destroyed) return;
      if (written >= 100 * 1_024) return void req.end();
      written += chunk.length;
      req.write(chunk, () => setTimeout(writeMore, 2));
    };
    writeMore();
  });
}

describe('bodies over 64 KiB', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: ENTERPRISE_ENTRY });
  });
  afterAll(() => server?.stop());

  it('are answered 413 payload_too_large, read by their client rather than cut off with EPIPE or a reset, under load', { timeout: 60_000 }, async () => {
    const client = startLegitimateClient(server.url);
    const results: (number | string)[] = [];
    for (let round = 0; round < 20; round++) results.push(...(await Promise.all(Array.from({ length: 10 }, () => oversizedCreate(server.url)))));
    expectServed(await client.stop());
    expect(results.filter((r) => r !== 413)).toEqual([]);
  });
});
