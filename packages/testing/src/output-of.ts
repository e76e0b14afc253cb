import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** What a finished child process printed, and how it ended. */
export interface Output {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects what a child prints on its piped stdout and stderr until it has ended. It waits for `close`, not `exit`:
 * `exit` can come while the last of the output is still in the pipes (under load, a refusal read as empty).
 * @example const { code, stderr } = await outputOf(spawn(process.execPath, [cli, 'keys', 'list'], { stdio: ['ignore', 'pipe', 'pipe'] }))
 */
export async function outputOf(child: ChildProcess): Promise<Output> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}
