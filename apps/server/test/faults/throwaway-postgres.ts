import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@petstore/testing';

const run = promisify(execFile);

/** A PostgreSQL cluster of its own, in a temporary folder, that a test may stop and start at will. */
export interface ThrowawayPostgres {
  /** `postgres://postgres:postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** Stops the server (`pg_ctl stop -m MODE`) and waits until it is down. */
  stop(mode: 'fast' | 'immediate' | 'smart'): Promise<void>;
  /** Starts the server again and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server and deletes its folder. */
  destroy(): Promise<void>;
}

/** The newest installed PostgreSQL's `bin` folder (Debian layout), or `undefined`. */
function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^[0-9]+$/.test(v) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest ? join(root, newest, 'bin') : undefined;
}

/**
 * Why a throwaway cluster cannot be made on this machine (one line), or `undefined` when it can: it needs root (to
 * run the server as the `postgres` user) and the Debian PostgreSQL binaries (`.ci/start-postgres.sh` installs them).
 * @example describe.skipIf(throwawayPostgresUnsupported())('…', () => { … })
 */
export function throwawayPostgresUnsupported(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux to run a PostgreSQL cluster as the postgres user';
  if (!postgresBinaries()) return 'needs PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)';
  return undefined;
}

/**
 * Creates and starts a PostgreSQL cluster in a temporary folder on a free port of 127.0.0.1, with `initdb` and
 * `pg_ctl` run as the `postgres` user; it touches no other cluster and no global configuration.
 * @example const pg = await startThrowawayPostgres(); await pg.stop('fast'); await pg.start(); await pg.destroy()
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const unsupported = throwawayPostgresUnsupported();
  if (unsupported) throw new Error(unsupported);
  const bin = postgresBinaries()!;
  // /tmp, not $TMPDIR: the postgres user must be able to reach the folder.
  const folder = await mkdtemp(join(existsSync('/tmp') ? '/tmp' : tmpdir(), 'petstore-pg-'));
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(folder, Number(stdout.trim()), Number(gid.trim()));
  const dataDir = join(folder, 'data');
  const asPostgres = (tool: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: folder, timeout: 60_000 });
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=60`;
  const pgCtl = (args: string[]) => asPostgres('pg_ctl', ['-D', dataDir, '-l', join(folder, 'server.log'), ...args]);
  let running = false;
  const start = async () => {
    await pgCtl(['start', '-w', '-t', '30', '-o', options]);
    running = true;
  };
  const stop = async (mode: 'fast' | 'immediate' | 'smart') => {
    await pgCtl(['stop', '-w', '-t', '30', '-m', mode]);
    running = false;
  };
  await start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async destroy() {
      if (running) await stop('immediate').catch(() => {});
      await rm(folder, { recursive: true, force: true });
    },
  };
}
