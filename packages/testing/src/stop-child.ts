import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Kills a server a test started (SIGKILL: nothing of it may outlive the test) and waits until it has exited; its own
 * `exit` listeners are dropped first, so an ordinary stop is not taken for a crash.
 * @example await stopChild(child)
 */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/**
 * Kills a server a test started if the test process exits first, and forgets it once the server is gone, so a file
 * that starts many servers does not pile `exit` listeners onto its process.
 * @example killAtExit(spawn('redis-server', args))
 */
export function killAtExit(child: ChildProcess): void {
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('close', () => process.off('exit', kill));
}
