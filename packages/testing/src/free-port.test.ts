import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';

describe('freePort', () => {
  it('gives ports below the kernel\'s ephemeral range that TCP and UDP can both take', async () => {
    const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralStart);
      const tcp = createServer().listen(port, '127.0.0.1');
      await once(tcp, 'listening');
      const udp = createSocket('udp4');
      udp.bind(port, '127.0.0.1');
      await once(udp, 'listening');
      await new Promise((resolve) => tcp.close(resolve));
      await new Promise((resolve) => udp.close(() => resolve(undefined)));
    }
  });
});
