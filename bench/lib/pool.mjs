// Keeps the servers of a run: started on first use by key, stopped when no later scenario needs them.
import { existsSync } from 'node:fs';
import { summarizeProfile } from './profile.mjs';

/** A pool of running servers. `onStopped(server)` is called after each one stops (with its profile, if any). */
export function createPool() {
  const running = new Map();
  const stopped = [];

  async function stop(key) {
    const entry = running.get(key);
    running.delete(key);
    const server = await entry.catch(() => undefined);
    if (!server) return undefined;
    const peakRss = server.peakRss();
    const exitedAt = await server.stop();
    const record = { key, name: server.name, startMs: Math.round(server.startMs), peakRssMB: peakRss && Math.round(peakRss / 2 ** 20) };
    if (server.profileFile) {
      // The profile is written while the process exits; give it a moment on a slow disk.
      for (let i = 0; i < 50 && !existsSync(server.profileFile); i++) await new Promise((r) => setTimeout(r, 100));
      if (existsSync(server.profileFile)) {
        record.profile = await summarizeProfile(server.profileFile, { windows: server.windows, exitedAt });
      }
    }
    stopped.push(record);
    return record;
  }

  return {
    /** The running server of `spec`, starting it if needed. */
    async get(spec) {
      const current = await running.get(spec.key)?.catch(() => undefined);
      if (current?.exited) {
        // It died under us (see ServerExited); start a fresh one.
        running.delete(spec.key);
        await current.stop();
      }
      if (!running.has(spec.key)) {
        const starting = spec.start(this).then((server) => Object.assign(server, { key: spec.key, windows: [], warmed: new Set() }));
        starting.catch(() => running.delete(spec.key));
        running.set(spec.key, starting);
      }
      return running.get(spec.key);
    },
    /** Stops the server of `key`, if it runs; answers its record (with its profile, if any). */
    stop,
    /** Stops every server whose key is not in `keep`. */
    async stopExcept(keep) {
      for (const key of [...running.keys()]) if (!keep.has(key)) await stop(key);
    },
    stopAll() {
      return this.stopExcept(new Set());
    },
    stopped,
  };
}
