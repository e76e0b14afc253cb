// Drives servers with the load generator, which runs in its own process, and measures each server's CPU meanwhile.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ServerExited } from './processes.mjs';
import { cpuMicros, cpuSpentSince, cpuTimes, machineBusyMicros, postgresCpuByPid } from './proc-stats.mjs';

const LOAD_SCRIPT = fileURLToPath(new URL('./load.mjs', import.meta.url));


/**
 * Starts the load generator process. `drive(server, request, options)` runs one load against `server` and reads the
 * server's CPU time right before the load starts and right after it ends; `close()` ends the process.
 * @example const load = await startLoadGenerator(); await load.drive(server, { path: '/v1/pets' }, { duration: 5, connections: 50 })
 */
export async function startLoadGenerator() {
  const child = spawn(process.execPath, [LOAD_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the load generator exited');
    return value;
  };
  if ((await next()) !== 'ready') throw new Error('the load generator did not start');

  let queue = Promise.resolve();
  async function run(server, request, { duration, connections, measureDatabase = false }) {
    const job = { ...request, url: server.url + request.path, duration, connections };
    const serverTimes = () => {
      try {
        if (server.exited) throw new ServerExited(server);
        return cpuTimes(server.pid);
      } catch (error) {
        throw error.code === 'ENOENT' ? new ServerExited(server) : error;
      }
    };
    const sample = () => ({
      ...((times) => ({ cpu: times.user + times.system, system: times.system }))(serverTimes()),
      load: cpuMicros(child.pid),
      db: measureDatabase ? postgresCpuByPid() : new Map(),
      machine: machineBusyMicros(),
      at: Date.now(),
    });
    const before = sample();
    child.stdin.write(`${JSON.stringify(job)}\n`);
    const load = JSON.parse(await next());
    const after = sample();
    if (load.error) throw new Error(`the load generator failed: ${load.error}`);
    if (server.exited) throw new ServerExited(server);
    const perRequest = (micros) => (load.completed ? micros / load.completed : undefined);
    const cores = (micros) => micros / 1e3 / (after.at - before.at);
    const spent = (name) => (name === 'db' ? cpuSpentSince(before.db, after.db) : after[name] - before[name]);
    return {
      ...load,
      window: [before.at, after.at],
      cpuUsPerRequest: perRequest(spent('cpu')),
      systemShare: spent('cpu') ? spent('system') / spent('cpu') : undefined, // of the server's CPU, in the kernel
      ...(measureDatabase ? { dbCpuUsPerRequest: perRequest(spent('db')) } : {}),
      // Cores busy during the run: the server, the load generator, and everything else on the machine (noise;
      // PostgreSQL's backends count as "other" unless measured).
      cores: { server: cores(spent('cpu')), load: cores(spent('load')), db: cores(spent('db')), other: cores(spent('machine') - spent('cpu') - spent('load') - spent('db')) },
    };
  }
  return {
    pid: child.pid,
    /** Runs one load; calls are queued, never concurrent. */
    drive(server, request, options) {
      const result = queue.then(() => run(server, request, options));
      queue = result.catch(() => {});
      return result;
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
