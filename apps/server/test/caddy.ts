import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { freePort, killAtExit } from '@petstore/testing';
import { recipe } from './doc-recipes.js';

/** Whether Caddy is installed (`.ci/install-caddy.sh`). */
export const caddyInstalled = (() => {
  try {
    execFileSync('caddy', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A Caddy of the test's own, as docs/deploying.md configures it. */
export interface Caddy {
  httpsPort: number;
  /** The root certificate of Caddy's internal CA, which signs its on-demand certificates. */
  rootCertificate(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A Caddyfile of docs/deploying.md with its addresses replaced and the test's own global options added first: HTTP
 * and HTTPS on free ports, certificates from Caddy's own CA (no test reaches an ACME server) kept in `dir`, and no
 * admin endpoint; nothing else of the recipe changes.
 * @example caddyRecipe('Caddyfile', dir, { 'reverse_proxy 127.0.0.1:3000': 'reverse_proxy 127.0.0.1:41234' }, [80, 443])
 */
export function caddyRecipe(name: 'Caddyfile' | 'Caddyfile.fleet', dir: string, substitutions: Record<string, string>, [httpPort, httpsPort]: [number, number]) {
  const text = recipe(name, substitutions);
  if (!text.startsWith('{\n')) throw new Error(`recipe ${name} no longer opens with a global options block`);
  const testOnly = ['admin off', `storage file_system ${join(dir, 'data')}`, 'skip_install_trust', 'local_certs', `http_port ${httpPort}`, `https_port ${httpsPort}`];
  return `{\n${testOnly.map((line) => `\t${line}\n`).join('')}${text.slice(2)}`;
}

/**
 * Starts Caddy with docs/deploying.md's one-instance Caddyfile (on-demand TLS) in front of `upstream`
 * (`127.0.0.1:PORT`), asking `askUrl` whether a name may have a certificate; admin API off, nothing from the
 * internet, HTTP and HTTPS on free ports.
 * @example const caddy = await startCaddy('127.0.0.1:3000', 'http://127.0.0.1:9464/tls/ask')
 */
export async function startCaddy(upstream: string, askUrl: string): Promise<Caddy> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-caddy-'));
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const caddyfile = caddyRecipe(
    'Caddyfile',
    dir,
    { 'ask http://127.0.0.1:9464/tls/ask': `ask ${askUrl}`, 'reverse_proxy 127.0.0.1:3000': `reverse_proxy ${upstream}` },
    [httpPort, httpsPort],
  );
  await writeFile(join(dir, 'Caddyfile'), caddyfile);
  // The documented command, in the folder that holds the file.
  const child: ChildProcess = spawn('caddy', ['run', '--config', 'Caddyfile'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  killAtExit(child);
  // Ready once it accepts TLS connections on its HTTPS port.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited:\n${log}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: httpsPort, servername: 'probe.invalid', rejectUnauthorized: false });
      socket.once('secureConnect', () => resolve(true)).once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'ECONNREFUSED'));
      socket.setTimeout(1000, () => socket.destroy());
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`caddy did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    httpsPort,
    async rootCertificate() {
      return readFile(join(dir, 'data', 'pki', 'authorities', 'local', 'root.crt'), 'utf8');
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
