import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** One request of a load run and how it ended. */
export interface Outcome {
  kind: 'create' | 'list';
  /** `Date.now()` when it was sent and when it ended. */
  sentAt: number;
  endedAt: number;
  /** HTTP status, or 0 when no response came (see `error`). */
  status: number;
  body: string;
  /** `ECONNRESET`, `ECONNREFUSED`, `timeout`, … when no response came. */
  error?: string;
  /** Whether the request went out on a kept-alive socket that had carried an earlier request. */
  reusedSocket: boolean;
  /** The response's headers, when one came. */
  headers?: IncomingHttpHeaders;
  /** Which client of a load run sent it. */
  client?: number;
  /** Whether a create carried an `Idempotency-Key` (a proxy may replay it safely). */
  idempotent?: boolean;
}

/**
 * Sends one request and settles with its outcome; never rejects. A request not answered within `timeoutMs` is
 * abandoned with `error: 'timeout'`.
 * @example const outcome = await send({ url, method: 'GET', path: '/healthz' })
 */
export function send(options: {
  url: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  agent?: Agent | false;
  timeoutMs?: number;
  kind?: Outcome['kind'];
}): Promise<Outcome> {
  const { hostname, port, protocol } = new URL(options.url);
  const sentAt = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    let answerHeaders: IncomingHttpHeaders | undefined;
    const done = (status: number, body: string, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ kind: options.kind ?? 'list', sentAt, endedAt: Date.now(), status, body, reusedSocket: req.reusedSocket, ...(answerHeaders ? { headers: answerHeaders } : {}), ...(error ? { error } : {}) });
    };
    const headers = { ...options.headers, ...(options.body ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) };
    // HTTPS (a balancer with a certificate of the test's own) or HTTP, the same way.
    const call = protocol === 'https:' ? httpsRequest : request;
    const req = call({ hostname, port, path: options.path, method: options.method, headers, agent: options.agent ?? false, rejectUnauthorized: false }, (res) => {
      let text = '';
      answerHeaders = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(res.statusCode ?? 0, text));
      res.on('error', (error: NodeJS.ErrnoException) => done(0, text, error.code ?? error.message));
    });
    const timer = setTimeout(() => {
      done(0, '', 'timeout');
      req.destroy();
    }, options.timeoutMs ?? 10_000);
    req.on('error', (error: NodeJS.ErrnoException) => done(0, '', error.code ?? error.message));
    req.end(options.body);
  });
}

/** A running load: `outcomes` fills up as requests end. */
export interface Load {
  outcomes: Outcome[];
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<Outcome[]>;
}

/**
 * Mixed load from `clients` concurrent keep-alive clients, each sending one request at a time: a create with
 * probability `createShare`, otherwise a list. Traffic goes only to the given URL.
 * @example const load = startLoad({ url, key, clients: 20 }); …; const outcomes = await load.stop()
 */
export function startLoad(options: {
  url: string;
  key: string;
  clients: number;
  createShare?: number;
  timeoutMs?: number;
  /** Pause after a response that is not 2xx, so a refused client does not spin. */
  pauseAfterRefusalMs?: number;
  /** Each client on a keep-alive connection of its own (opened again when closed), rather than a shared pool. */
  connectionPerClient?: boolean;
  /** The share of creates that carry an `Idempotency-Key` of their own (default none). */
  idempotentShare?: number;
}): Load {
  const makeAgent = (maxSockets: number) =>
    options.url.startsWith('https:') ? new HttpsAgent({ keepAlive: true, maxSockets }) : new Agent({ keepAlive: true, maxSockets });
  const agent = makeAgent(options.clients);
  const agents = options.connectionPerClient ? Array.from({ length: options.clients }, () => makeAgent(1)) : [];
  const outcomes: Outcome[] = [];
  let running = true;
  let sequence = 0;
  const auth = { authorization: `Bearer ${options.key}` };
  const client = async (_: unknown, index: number) => {
    const own = agents[index] ?? agent;
    while (running) {
      const create = Math.random() < (options.createShare ?? 0.5);
      const idempotent = create && Math.random() < (options.idempotentShare ?? 0);
      const n = sequence++;
      const outcome = await send(
        create
          ? {
              url: options.url,
              agent: own,
              kind: 'create',
              method: 'POST',
              path: '/v1/pets',
              headers: { ...auth, 'content-type': 'application/json', ...(idempotent ? { 'idempotency-key': `load-${process.pid}-${n}` } : {}) },
              body: JSON.stringify({ name: `load-${process.pid}-${n}`, categoryId: 1 }),
              timeoutMs: options.timeoutMs ?? 10_000,
            }
          : { url: options.url, agent: own, kind: 'list', method: 'GET', path: '/v1/pets?limit=5', headers: auth, timeoutMs: options.timeoutMs ?? 10_000 },
      );
      outcomes.push({ ...outcome, client: index, ...(idempotent ? { idempotent } : {}) });
      if (outcome.status < 200 || outcome.status > 299) await new Promise((r) => setTimeout(r, options.pauseAfterRefusalMs ?? 20));
    }
  };
  const clients = Array.from({ length: options.clients }, client);
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(clients);
      agent.destroy();
      for (const each of agents) each.destroy();
      return outcomes;
    },
  };
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Every pet id the service lists, page by page (following `Link: rel="next"`).
 * @example const ids = await allPetIds(server.url, key)
 */
export async function allPetIds(url: string, key: string): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let path: string | undefined = '/v1/pets?limit=100'; path; ) {
    const page = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (page.status !== 200) throw new Error(`listing pets answered ${page.status}: ${await page.text()}`);
    for (const pet of (await page.json()) as { id: number }[]) ids.add(pet.id);
    const next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    path = next ? new URL(next).pathname + new URL(next).search : undefined;
  }
  return ids;
}
