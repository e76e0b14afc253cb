import { fileURLToPath } from 'node:url';
import { startProcess, type ServerProcess } from '../helpers.js';

const probe = fileURLToPath(new URL('../fixtures/heap-probe.mjs', import.meta.url));

/**
 * Starts the built service with the heap probe loaded (fixtures/heap-probe.mjs).
 * @example const server = await startProbedProcess({ PETSTORE_DATA_DIR: 'memory://' }); await retainedHeap(server)
 */
export const startProbedProcess = (env: Record<string, string>) => startProcess(env, ['--expose-gc', '--import', probe]);

/** The heap the service still holds after a full collection, in bytes. */
export async function retainedHeap(server: ServerProcess): Promise<number> {
  const reports = () => [...server.stderr().matchAll(/^\{"heapUsed":(\d+)\}$/gm)];
  const before = reports().length;
  server.child.kill('SIGUSR2');
  for (let waited = 0; waited < 10_000; waited += 20) {
    const all = reports();
    if (all.length > before) return Number(all[all.length - 1]![1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no heap report:\n${server.stderr()}`);
}

/**
 * Runs `count` requests made by `send(i)`, `workers` at a time; answers how many got each status.
 * @example const statuses = await flood(1000, 16, (i) => fetch(url(i)))
 */
export async function flood(count: number, workers: number, send: (i: number) => Promise<Response>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) {
        const response = await send(next++);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}
