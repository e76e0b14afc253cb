import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, killAtExit } from '@petstore/testing';
import { recipe } from './doc-recipes.js';
import { makeCertificate, send } from './haproxy.js';

/** Whether nginx is installed (`.ci/install-nginx.sh`). */
export const nginxInstalled = (() => {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A running nginx. */
export interface Nginx {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts nginx with docs/deploying.md's nginx.conf, as printed there with only its addresses, port and certificate
 * files replaced, included in the `http` block of a main file of the test's own (what Debian's nginx.conf does for
 * conf.d/), in front of the three instances at these URLs; waits until it answers `/livez`.
 * @example const nginx = await startNginx(instances.map((i) => i.url)); … await nginx.stop()
 */
export async function startNginx(urls: string[]): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-nginx-'));
  // nginx's workers run as nobody when started by root: they must reach the folder.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'logs'));
  const port = await freePort();
  const { cert, key } = makeCertificate(dir);
  const documented = ['10.0.0.11:3000', '10.0.0.12:3000', '10.0.0.13:3000'];
  await writeFile(
    join(dir, 'petstore.conf'),
    recipe('nginx.conf', {
      'listen 443 ssl;': `listen 127.0.0.1:${port} ssl;`,
      '/etc/nginx/api.example.com.crt': cert,
      '/etc/nginx/api.example.com.key': key,
      ...Object.fromEntries(documented.map((address, i) => [address, new URL(urls[i]!).host])),
    }),
  );
  const main = [
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'logs', 'error.log')};`,
    'events {}',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, `${kind}_temp`)};`),
    `  include ${join(dir, 'petstore.conf')};`,
    '}',
    '',
  ].join('\n');
  await writeFile(join(dir, 'nginx.conf'), main);
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf')];
  execFileSync('nginx', ['-t', ...args], { stdio: 'pipe' });
  const child: ChildProcess = spawn('nginx', [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  killAtExit(child);
  for (let i = 0; ; i++) {
    const ready = await send(port, '/livez').then((r) => r.status === 200, () => false);
    if (ready) break;
    if (i > 100 || child.exitCode !== null) throw new Error(`nginx did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    async stop() {
      // SIGQUIT would wait for keep-alive connections; SIGTERM is nginx's fast shutdown.
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
