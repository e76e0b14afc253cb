import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { killAtExit, stopChild } from './stop-child.js';

/** The records a test's DNS server answers with; every other name under `.test` does not exist. */
export interface DnsRecords {
  /** `[name, target]`: CNAME records. */
  cnames?: readonly (readonly [string, string])[];
  /** `[name, address]`: A (or AAAA) records. */
  addresses?: readonly (readonly [string, string])[];
}

/** Whether dnsmasq is installed (`.ci/install-dnsmasq.sh`); the DNS tests are skipped without it, and CI has it. */
export const dnsmasqInstalled = (() => {
  try {
    execFileSync('dnsmasq', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A dnsmasq of the test's own on 127.0.0.1 and a free port, authoritative for `.test` and asking nobody else;
 * `set` replaces its records (it restarts on the same port, as dnsmasq rereads CNAMEs only at start). Needs
 * `dnsmasq` on the PATH (`.ci/install-dnsmasq.sh`).
 * @example const dns = await startDnsServer({ cnames: [['shop.example.test', 'edge.platform.test']] }); dns.server // '127.0.0.1:40123'
 */
export async function startDnsServer(records: DnsRecords = {}) {
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start(current: DnsRecords) {
    const args = [
      '--keep-in-foreground',
      '--no-hosts',
      '--no-resolv',
      '--pid-file=',
      '--user=',
      `--port=${port}`,
      '--listen-address=127.0.0.1',
      '--bind-interfaces',
      '--local=/test/',
      '--log-facility=-',
      ...(current.addresses ?? []).map(([name, address]) => `--host-record=${name},${address}`),
      ...(current.cnames ?? []).map(([name, target]) => `--cname=${name},${target}`),
    ];
    const started = spawn('dnsmasq', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    started.stderr!.setEncoding('utf8');
    started.stderr!.on('data', (chunk: string) => (err += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dnsmasq did not start:\n${err}`)), 10_000);
      const poll = setInterval(() => {
        if (/started, version/i.test(err)) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve();
        }
      }, 20);
      started.once('error', reject);
      started.once('exit', (code) => {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`dnsmasq exited with ${code}:\n${err}`));
      });
    });
    child = started;
    killAtExit(started);
  }

  async function stop() {
    const running = child;
    child = undefined;
    await stopChild(running);
  }

  await start(records);
  return {
    /** `127.0.0.1:port`, for `PETSTORE_DNS_SERVERS`. */
    server: `127.0.0.1:${port}`,
    async set(next: DnsRecords) {
      await stop();
      await start(next);
    },
    stop,
  };
}
