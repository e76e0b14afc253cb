import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApiKeyStore, DomainStore, PetStore } from '@petstore/core';
import { adminChannelFolders, preparePrivateFolder, readTrustedToken, writeToken, type AdminChannelFolder } from './admin-channel-folder.js';

/*
 * The key tool's way into a running service on the embedded database, which only one process may open: an HTTP
 * listener on a Unix socket (never a TCP port, so never the public API port), answering only requests that carry
 * the token the service writes beside it at start-up, in a folder only the service's user can enter
 * (admin-channel-folder.ts).
 */

/** The key store methods the tool may call remotely. */
const METHODS = new Set(['create', 'list', 'revoke', 'setLimits', 'roll', 'deprecatedUsage', 'usage']);
/** The domain store methods the tool may call remotely, and which of them change what is served. */
const DOMAIN_METHODS = new Set(['add', 'verify', 'list', 'remove', 'redirect']);
const DOMAIN_CHANGES = new Set(['add', 'verify', 'remove', 'redirect']);

/** What the key tool works with for custom domains. */
export type DomainAdmin = Pick<DomainStore, 'add' | 'verify' | 'list' | 'remove' | 'redirect'>;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const revive = (_key: string, value: unknown) => (typeof value === 'string' && ISO_DATE.test(value) ? new Date(value) : value);

/** What the key tool works with: the key store, the deprecated-operation inventory and the usage ledger. */
export type KeyAdmin = ApiKeyStore & Pick<PetStore, 'deprecatedUsage' | 'usage'>;

/** What the admin listener serves. */
export interface AdminTarget {
  keys: KeyAdmin;
  /** A consistent copy of the embedded database, gzipped tar. */
  backup(): Promise<Blob>;
  /** The custom domains; a change is served at once (`onDomainsChanged`). */
  domains?: DomainAdmin;
  onDomainsChanged?: () => Promise<void>;
}

/** The admin listener of a running service. */
export interface AdminChannel {
  /** Where it listens. */
  readonly place: AdminChannelFolder;
  /** The places tried before it that could not be made private, each with the reason. */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

/** Where the channel is looked for: the data folder, and `$XDG_RUNTIME_DIR` (tried first) when set. */
export interface AdminChannelOptions {
  runtimeDir?: string | undefined;
}

function reply(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 65_536) throw new Error('request too large');
  }
  return text;
}

/**
 * Opens the admin listener of the service on `dataDir` in the first place that can be made private, and writes its
 * token there; `close` removes both. Throws, naming every place and why, when none can.
 * @example const admin = await openAdminChannel('./.petstore-data', { keys: store.apiKeys, backup }, { runtimeDir })
 */
export async function openAdminChannel(dataDir: string, target: AdminTarget, options: AdminChannelOptions = {}): Promise<AdminChannel> {
  const refused: string[] = [];
  let place: AdminChannelFolder | undefined;
  for (const candidate of await adminChannelFolders(dataDir, options.runtimeDir)) {
    try {
      await preparePrivateFolder(candidate);
      place = candidate;
      break;
    } catch (error) {
      refused.push(`${candidate.folder}: ${(error as Error).message}`);
    }
  }
  if (!place) throw new Error(`No private folder for the admin channel: ${refused.join('; ')}`);
  const { socketPath, tokenPath } = place;
  const token = randomBytes(32).toString('hex');
  const expected = Buffer.from(`Bearer ${token}`);
  const authorised = (req: IncomingMessage) => {
    const sent = Buffer.from(req.headers.authorization ?? '');
    return sent.length === expected.length && timingSafeEqual(sent, expected);
  };

  const server: Server = createServer((req, res) => {
    if (!authorised(req)) return reply(res, 401, { message: 'The admin token is missing or wrong.' });
    if (req.method === 'GET' && req.url === '/backup') {
      target.backup().then(
        async (blob) => {
          const bytes = Buffer.from(await blob.arrayBuffer());
          res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length });
          res.end(bytes);
        },
        (error: unknown) => reply(res, 500, { message: `The backup failed: ${(error as Error).message}` }),
      );
      return;
    }
    const [, group, method] = /^\/(keys|domains)\/([A-Za-z]+)$/.exec(req.url ?? '') ?? [];
    const object = group === 'domains' ? target.domains : target.keys;
    const allowed = group === 'domains' ? DOMAIN_METHODS : METHODS;
    if (req.method !== 'POST' || method === undefined || object === undefined || !allowed.has(method)) {
      return reply(res, 404, { message: 'No such admin action.' });
    }
    readBody(req)
      .then(async (text) => {
        const args = JSON.parse(text || '[]', revive) as unknown[];
        const call = (object as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method];
        if (typeof call !== 'function' || !Array.isArray(args)) return reply(res, 404, { message: 'No such admin action.' });
        const result = await call.apply(object, args);
        if (group === 'domains' && DOMAIN_CHANGES.has(method)) await target.onDomainsChanged?.();
        reply(res, 200, { result });
      })
      .catch((error: unknown) => reply(res, 400, { message: (error as Error).message, name: (error as Error).name }));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolveListen());
  });
  // Inside a folder only this user can enter; 0600 as well, for a folder an operator made wider by hand.
  await chmod(socketPath, 0o600);
  await writeToken(place, token);
  return {
    place,
    refused,
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
      await rm(tokenPath, { force: true });
      await rm(socketPath, { force: true });
    },
  };
}

/** The running service's admin listener, as the key tool reaches it. */
export interface AdminClient {
  /** The key store of the running service. */
  keys: KeyAdmin;
  /** The custom domains of the running service. */
  domains: DomainAdmin;
  /** Streams a backup of the running service's database. */
  backup(): Promise<Buffer>;
}

function call(socketPath: string, token: string, method: string, path: string, body?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolveCall, reject) => {
    const req = request({ socketPath, method, path, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolveCall({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Connects to the admin listener of the service running on `dataDir`; undefined when there is none to reach. A place
 * whose folder, socket or token is not the service's user's own is never sent the token; `onIgnored` hears why.
 * @example const admin = await connectAdminChannel('./.petstore-data', { runtimeDir }); await admin?.keys.list()
 */
export async function connectAdminChannel(
  dataDir: string,
  options: AdminChannelOptions & { onIgnored?: (place: AdminChannelFolder, reason: string) => void } = {},
): Promise<AdminClient | undefined> {
  const places = await adminChannelFolders(dataDir, options.runtimeDir).catch(() => []);
  for (const place of places) {
    const token = await readTrustedToken(place, dataDir).catch((error: unknown) => {
      const { code } = error as NodeJS.ErrnoException;
      // Nothing there (no service runs, or it uses another place) is no reason to warn.
      if (code !== 'ENOENT') options.onIgnored?.(place, (error as Error).message);
      return undefined;
    });
    if (token === undefined) continue;
    const reachable = await call(place.socketPath, token, 'POST', '/keys/list', '[]').then(
      (answer) => answer.status === 200,
      () => false,
    );
    if (reachable) return clientOf(place.socketPath, token);
  }
  return undefined;
}

function clientOf(socketPath: string, token: string): AdminClient {
  const remote = <T extends object>(group: string) =>
    new Proxy({} as T, {
      get: (_target, method: string) => async (...args: unknown[]) => {
        const answer = await call(socketPath, token, 'POST', `/${group}/${method}`, JSON.stringify(args));
        const body = JSON.parse(answer.body.toString('utf8'), revive) as { result?: unknown; message?: string; name?: string };
        if (answer.status !== 200) throw Object.assign(new Error(body.message ?? `admin action failed (${answer.status})`), { name: body.name ?? 'Error' });
        return body.result;
      },
    });
  return {
    keys: remote<KeyAdmin>('keys'),
    domains: remote<DomainAdmin>('domains'),
    async backup() {
      const answer = await call(socketPath, token, 'GET', '/backup');
      if (answer.status !== 200) throw new Error(JSON.parse(answer.body.toString('utf8')).message as string);
      return answer.body;
    },
  };
}

