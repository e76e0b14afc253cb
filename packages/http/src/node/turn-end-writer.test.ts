import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTurnEndWriter } from './turn-end-writer.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const ok = (body: string) => ({ 'content-type': 'text/plain', 'content-length': String(body.length) });

describe('a turn-end writer', () => {
  it('writes a response when the event-loop turn ends, not before', async () => {
    const seen: string[] = [];
    const writeAtTurnEnd = createTurnEndWriter();
    const url = await serve((_req, res) => {
      writeAtTurnEnd(res, 200, ok('hello'), 'hello');
      seen.push(`queued: sent=${res.headersSent}`);
      queueMicrotask(() => seen.push(`same turn: sent=${res.headersSent}`));
      setImmediate(() => seen.push(`turn over: sent=${res.headersSent}`));
    });
    const response = await fetch(url);
    expect(await response.text()).toBe('hello');
    expect(seen).toEqual(['queued: sent=false', 'same turn: sent=false', 'turn over: sent=true']);
  });

  it('writes every response queued in one turn, in one flush', async () => {
    const writeAtTurnEnd = createTurnEndWriter();
    const waiting: ServerResponse[] = [];
    let sentBetween: boolean | undefined;
    const url = await serve((_req, res) => {
      waiting.push(res);
      if (waiting.length < 3) return;
      for (const [i, r] of waiting.entries()) writeAtTurnEnd(r, 200, ok(`r${i}`), `r${i}`);
      sentBetween = waiting.some((r) => r.headersSent);
    });
    const bodies = await Promise.all([1, 2, 3].map(() => fetch(url).then((r) => r.text())));
    expect(bodies.sort()).toEqual(['r0', 'r1', 'r2']);
    expect(sentBetween).toBe(false);
  });

  it('a response whose headers cannot be written costs that response only, never the process or the others', async () => {
    const writeAtTurnEnd = createTurnEndWriter();
    const waiting: ServerResponse[] = [];
    const url = await serve((_req, res) => {
      waiting.push(res);
      if (waiting.length < 2) return;
      for (const r of waiting) {
        const bad = r.req.url === '/bad';
        writeAtTurnEnd(r, 200, bad ? { 'x-broken': 'a\nb', 'content-length': '2' } : ok('ok'), 'ok');
      }
    });
    const bad = fetch(`${url}/bad`).then(
      (r) => r.status,
      (error: Error) => error.name,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const good = await fetch(`${url}/good`);
    expect(good.status).toBe(200);
    expect(await good.text()).toBe('ok');
    expect(await bad).toBe('TypeError');
  });
});

