import { request } from 'node:http';
import type { ApiKeyStore, DomainStore, PetStore, WebhookAdmin } from '@petstore/core';
import { adminChannelFolders, readTrustedToken, type AdminChannelFolder } from './admin-channel-folder.js';

/*
 * The key tool's side of the admin channel: the way into a running Pet Store service on an embedded data folder, which
 * only one process may open. The service listens on a Unix socket in a folder only its user can enter, and answers
 * only requests that carry the token it writes beside the socket (admin-channel-folder.ts).
 */

/** What the key tool works with: the key store, and the deprecated-operation inventory. */
export type KeyAdmin = ApiKeyStore & Pick<PetStore, 'deprecatedUsage' | 'usage'>;

/** What the key tool works with for custom domains. */
export type DomainAdmin = Pick<DomainStore, 'add' | 'verify' | 'list' | 'remove' | 'redirect'>;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/**
 * The JSON reviver of the channel, both ways: an ISO instant becomes a Date again.
 * @example JSON.parse(text, reviveDates)
 */
export const reviveDates = (_key: string, value: unknown): unknown => (typeof value === 'string' && ISO_DATE.test(value) ? new Date(value) : value);

/** The running service's admin listener, as the key tool reaches it. */
export interface AdminClient {
  /** The key store of the running service. */
  keys: KeyAdmin;
  /** The custom domains of the running service. */
  domains: DomainAdmin;
  /** The webhooks of the running service, as the operator sees them. */
  webhooks: WebhookAdmin;
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
  options: { runtimeDir?: string | undefined; onIgnored?: (place: AdminChannelFolder, reason: string) => void } = {},
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
        const body = JSON.parse(answer.body.toString('utf8'), reviveDates) as { result?: unknown; message?: string; name?: string };
        if (answer.status !== 200) throw Object.assign(new Error(body.message ?? `admin action failed (${answer.status})`), { name: body.name ?? 'Error' });
        return body.result;
      },
    });
  return {
    keys: remote<KeyAdmin>('keys'),
    domains: remote<DomainAdmin>('domains'),
    webhooks: remote<WebhookAdmin>('webhooks'),
    async backup() {
      const answer = await call(socketPath, token, 'GET', '/backup');
      if (answer.status !== 200) throw new Error(JSON.parse(answer.body.toString('utf8')).message as string);
      return answer.body;
    },
  };
}
