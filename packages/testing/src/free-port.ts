import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the kernel's own ports begin (those of port-0 listeners and of every client connection's end). */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

async function isFree(port: number): Promise<boolean> {
  const tcp = createServer();
  const udp = createSocket('udp4');
  try {
    tcp.listen(port, '127.0.0.1');
    await once(tcp, 'listening');
    udp.bind(port, '127.0.0.1');
    await once(udp, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    if (tcp.listening) await new Promise((resolve) => tcp.close(resolve));
    await new Promise<void>((resolve) => udp.close(() => resolve())).catch(() => {});
  }
}

const LOWEST = 10_000;

/**
 * A port of 127.0.0.1 free for TCP and UDP, for a program that cannot be told to take port 0. It is below the
 * kernel's ephemeral range, so while its server is down for a test's outage, no client connection or port-0 listener
 * of a test running beside it can take it: the server gets it back when it starts again.
 * @example const port = await freePort()
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; end - LOWEST > 1_000 && attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port of 127.0.0.1 between ${LOWEST} and the ephemeral range (from ${end})`);
}
