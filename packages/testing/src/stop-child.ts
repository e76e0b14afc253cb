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
