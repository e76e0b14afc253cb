import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  adminChannelFolders,
  preparePrivateFolder,
  reviveDates,
  writeToken,
  type AdminChannelFolder,
  type DomainAdmin,
  type KeyAdmin,
  type WebhookAdmin,
} from '@petstore/cli/admin-channel';

/*
 * The key tool's way into a running service on the embedded database, which only one process may open: an HTTP
 * listener on a Unix socket (never a TCP port, so never the public API port), answering only requests that carry
 * the token the service writes beside it at start-up, in a folder only the service's user can enter. Where that
 * folder is, and the tool's side, are @petstore/cli's (`@petstore/cli/admin-channel`), so both tools reach it.
 */

/** The key store methods the tool may call remotely. */
const METHODS = new Set(['create', 'list', 'revoke', 'setLimits', 'roll', 'deprecatedUsage', 'usage']);
/** The domain store methods the tool may call remotely, and which of them change what is served. */
const DOMAIN_METHODS = new Set(['add', 'verify', 'list', 'remove', 'redirect']);
const DOMAIN_CHANGES = new Set(['add', 'verify', 'remove', 'redirect']);
/** The webhook methods the tool may call remotely: the operator's view (`petstore webhooks …`). */
const WEBHOOK_METHODS = new Set(['list', 'deliveries', 'redeliver']);

/** What the admin listener serves. */
export interface AdminTarget {
  keys: KeyAdmin;
  /** A consistent copy of the embedded database, gzipped tar. */
  backup(): Promise<Blob>;
  /** The custom domains; a change is served at once (`onDomainsChanged`). */
  domains?: DomainAdmin;
  onDomainsChanged?: () => Promise<void>;
  /** The operator's view of the webhooks: every owner's endpoints, their deliveries, redelivery; no secret. */
  webhooks?: WebhookAdmin;
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
    const [, group, method] = /^\/(keys|domains|webhooks)\/([A-Za-z]+)$/.exec(req.url ?? '') ?? [];
    const object = group === 'domains' ? target.domains : group === 'webhooks' ? target.webhooks : target.keys;
    const allowed = group === 'domains' ? DOMAIN_METHODS : group === 'webhooks' ? WEBHOOK_METHODS : METHODS;
    if (req.method !== 'POST' || method === undefined || object === undefined || !allowed.has(method)) {
      return reply(res, 404, { message: 'No such admin action.' });
    }
    readBody(req)
      .then(async (text) => {
        const args = JSON.parse(text || '[]', reviveDates) as unknown[];
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
