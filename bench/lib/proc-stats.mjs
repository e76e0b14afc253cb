// Reads a process's CPU time and memory from /proc (Linux).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of utime/stime in /proc/<pid>/stat (`getconf CLK_TCK`, usually 100). */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; everything after its closing ")" is space-separated from field 3.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time every process on the machine spent (/proc/stat, all cores), in microseconds. */
export function machineBusyMicros() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const busy = fields.slice(0, 8).reduce((a, b) => a + b, 0) - fields[3] - fields[4]; // idle and iowait are not busy
  return (busy * 1e6) / CLOCK_TICKS;
}

/** User and system CPU time of a process (all its threads), in microseconds. */
export function cpuTimes(pid) {
  const fields = statFields(pid); // utime and stime are fields 14 and 15 of proc(5)
  return { user: (Number(fields[11]) * 1e6) / CLOCK_TICKS, system: (Number(fields[12]) * 1e6) / CLOCK_TICKS };
}

/** User + system CPU time of a process (all its threads), in microseconds. */
export function cpuMicros(pid) {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

function statusField(pid, name) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line ? Number(line.split(/\s+/)[1]) * 1024 : undefined; // reported in kB
}

/** Peak resident set size (VmHWM) of a process, in bytes. */
export const peakRssBytes = (pid) => statusField(pid, 'VmHWM');

/** Current resident set size (VmRSS) of a process, in bytes. */
export const rssBytes = (pid) => statusField(pid, 'VmRSS');

/**
 * CPU time of every process named `postgres` on this machine (a local PostgreSQL server's backends), in
 * microseconds, by pid. Compare two readings with {@link cpuSpentSince}: backends come and go with connections.
 */
export function postgresCpuByPid() {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      byPid.set(entry, cpuMicros(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return byPid;
}

/**
 * CPU time spent between two {@link postgresCpuByPid} readings by the processes alive at the second one (a process
 * that started in between counts from zero). Time of processes that ended in between is lost, so this can
 * under-count; it never goes negative.
 */
export function cpuSpentSince(before, after) {
  let spent = 0;
  for (const [pid, micros] of after) spent += Math.max(0, micros - (before.get(pid) ?? 0));
  return spent;
}
