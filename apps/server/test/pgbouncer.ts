import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { databaseUrl, freePort } from '@petstore/testing';
import { haproxyInstalled } from './haproxy.js';
import { recipe } from './doc-recipes.js';

const run = promisify(execFile);

/**
 * Why PgBouncer cannot run here (one line), or `undefined` when it can: it needs Debian's `pgbouncer`
 * (`.ci/install-pgbouncer.sh`), and as root a `postgres` user to run it as (PgBouncer refuses to run as root).
 * @example describe.skipIf(pgbouncerUnsupported())('…', () => { … })
 */
export function pgbouncerUnsupported(): string | undefined {
  try {
    execFileSync('pgbouncer', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'pgbouncer is not installed (apt-get install pgbouncer, or bash .ci/install-pgbouncer.sh)';
  }
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'pgbouncer refuses to run as root and there is no postgres user to run it as';
    }
  }
  return undefined;
}

/**
 * Why a fleet test behind the documented HAProxy and PgBouncer cannot run here, if it cannot: no `DATABASE_URL`, no
 * HAProxy, or (outside CI) no PgBouncer to run. In CI (.ci/run installs both and sets `DATABASE_URL`) it must run:
 * there it fails instead. Warns, naming the test, when it is skipped.
 * @example const unsupported = fleetUnsupported('orders behind PgBouncer'); describe.skipIf(unsupported)('…', () => { … })
 */
export function fleetUnsupported(what: string): string | undefined {
  const unsupported = !databaseUrl
    ? 'DATABASE_URL is not set'
    : !haproxyInstalled
      ? 'haproxy is not installed (bash .ci/install-haproxy.sh)'
      : process.env.CI
        ? undefined
        : pgbouncerUnsupported();
  if (unsupported) console.warn(`skipping ${what}: ${unsupported}`);
  return unsupported;
}

/** A PgBouncer of a test's own, on a free port of 127.0.0.1. */
export interface PgBouncer {
  /** `upstream` with its host and port replaced by PgBouncer's: the same user, password and database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer as docs/deploying.md configures it (transaction pooling, 16 server connections per database,
 * `query_wait_timeout = 5`, `server_login_retry = 1`) in front of the server of `upstream` (every database on it), with
 * only its addresses, ports, files and user replaced (upstream's user reads its console, as `stats_users`; with
 * `admin`, also as `admin_users`, who may `PAUSE` and `RESUME` it), and waits until it listens.
 * @example const bouncer = await startPgBouncer(process.env.DATABASE_URL!); … await bouncer.stop()
 */
export async function startPgBouncer(upstream: string, options: { admin?: boolean } = {}): Promise<PgBouncer> {
  const unsupported = pgbouncerUnsupported();
  if (unsupported) throw new Error(unsupported);
  const server = new URL(upstream);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  // /tmp, not $TMPDIR: the postgres user must be able to read the configuration.
  const dir = await mkdtemp('/tmp/petstore-pgbouncer-');
  const port = await freePort();
  const userlist = join(dir, 'userlist.txt');
  await writeFile(userlist, `"${user}" "${password}"\n`);
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    recipe('pgbouncer.ini', {
      'host=10.0.0.5 port=5432': `host=${server.hostname} port=${server.port || 5432}`,
      'listen_addr = 0.0.0.0': 'listen_addr = 127.0.0.1',
      'listen_port = 6432': `listen_port = ${port}`,
      '/etc/pgbouncer/userlist.txt': userlist,
      'stats_users = petstore': `stats_users = ${user}${options.admin ? `\nadmin_users = ${user}` : ''}`,
    }),
  );
  let command = 'pgbouncer';
  let args = [join(dir, 'pgbouncer.ini')];
  if (process.getuid?.() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(dir, uid, gid);
    await chmod(dir, 0o700);
    [command, args] = ['runuser', ['-u', 'postgres', '--', 'pgbouncer', ...args]];
  }
  let log = '';
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true)).once('error', () => resolve(false));
    });
  for (let i = 0; !(await listening()); i++) {
    if (child.exitCode !== null || i > 100) throw new Error(`pgbouncer did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
