import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One POST a receiver got. */
export interface Delivery {
  /** Its `webhook-id`. */
  id: string;
  type: string;
  data: { id: number };
  /** How many POSTs of this `webhook-id` came before it. */
  seen: number;
  /** When it arrived (`Date.now()`). */
  at: number;
  /** The sender's port: which process sent it (see `senderPid`). */
  remotePort: number;
  /** The status it was answered with; undefined while held, or when its connection ended first. */
  answered?: number;
}

/** What the receiver does with a POST: answer it with a status, or hold it open, unanswered, until `release()`. */
export type Decide = (delivery: Delivery) => number | 'hold';

/**
 * A webhook receiver on loopback, as a receiver should be written: it dedupes by `webhook-id`, so `acks` counts the
 * 2xx answers each id got (a second one is a delivery made twice). Each POST is recorded; `decide` answers it.
 * @example const receiver = await startReceiver(() => 200); receiver.url // 'http://127.0.0.1:40123/hooks'
 */
export async function startReceiver(decide: Decide = () => 200) {
  const deliveries: Delivery[] = [];
  const acks = new Map<string, number>();
  const seen = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { id: number } };
      const id = String(req.headers['webhook-id']);
      const delivery: Delivery = {
        id,
        type: body.type,
        data: body.data,
        seen: seen.get(id) ?? 0,
        at: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      deliveries.push(delivery);
      seen.set(id, delivery.seen + 1);
      const answer = decide(delivery);
      if (answer === 'hold') {
        held.add(res);
        res.once('close', () => held.delete(res));
        return;
      }
      delivery.answered = answer;
      if (answer >= 200 && answer < 300) acks.set(id, (acks.get(id) ?? 0) + 1);
      res.writeHead(answer).end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    deliveries,
    acks,
    /** The POSTs held open now. */
    held: () => held.size,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Polls every 20 ms until `check` holds; fails after `ms`, naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pid of the process whose TCP connection to this machine leaves from `localPort` (ss, of iproute2). */
export async function pidOfPort(localPort: number): Promise<number | undefined> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('ss', ['-Htnp', 'state', 'established', `sport = :${localPort}`], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const pid = /pid=([0-9]+)/.exec(out)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/** A JSON call to a server process's `/v1` with a key: its status and body. */
export async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> & { id: number } };
}
