import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { outputOf } from '@petstore/testing';

/** The built entry points; `npm test` builds first. */
export const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
export const cliJs = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A server process started from the built entry point. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Settles once the process has ended and all it printed has been read. */
  closed: Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node dist/main.js` (or another release's `entry`) with the given environment (and node's own arguments) on
 * a free port and waits until it listens (30 s at most, unless told otherwise).
 * @example const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://' })
 */
export async function startProcess(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  entry = mainJs,
  startTimeoutMs = 30_000,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', PETSTORE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  // 'close', not 'exit': 'exit' can come while the last of its output is still in the pipes.
  const closed = once(child, 'close').then(
    () => {},
    () => {},
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nothing a test started may outlive it.
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}\n${err}`));
    }, startTimeoutMs);
    const check = () => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void closed.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${child.exitCode ?? child.signalCode}:\n${out}\n${err}`));
    });
  });
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    closed,
    async stop(signal = 'SIGTERM') {
      // A process ended by a signal keeps exitCode null: check signalCode too, or it would be signalled again.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await closed;
      return child.exitCode;
    },
  };
}

/**
 * Runs the key tool (or another release's, `cli`) and collects its output.
 * @example const { code, stdout } = await runCli(['keys', 'list'], env)
 */
export async function runCli(args: string[], env: Record<string, string>, cli = cliJs) {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { code, stdout, stderr } = await outputOf(child);
  return { code: code as number, stdout, stderr };
}

/** A key as `petstore keys list --json` prints it (the store's record, times as ISO 8601). */
export interface ListedKey {
  id: number;
  label: string | null;
  plan: string;
  limits: { perMinute: number; perDay: number };
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
  replacedBy: number | null;
  deprecatedCalls: number;
  lastDeprecatedCallAt: string | null;
}
