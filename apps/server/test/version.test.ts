import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli, startProcess } from './helpers.js';

// What the built service says it runs must be what its package.json says, the version `npm run release` sets.
const packageJson = new URL('../package.json', import.meta.url);
const released = async () => (JSON.parse(await readFile(packageJson, 'utf8')) as { version: string }).version;

describe('the release the service names', () => {
  it('is printed by petstore --version (and -v), without opening any database', async () => {
    const version = await released();
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    for (const flag of ['--version', '-v']) {
      // A data folder that cannot exist: the flag must answer before any configuration is read.
      const { code, stdout, stderr } = await runCli([flag], { PETSTORE_DATA_DIR: '/proc/no-such-folder' });
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
    const extra = await runCli(['--version', 'keys'], {});
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('--version takes nothing after it.');
    expect((await runCli(['--help'], {})).stdout).toContain('-v, --version');
  });

  it("is in /healthz's body, in petstore_build_info and in the start-up line of the running service", async () => {
    const version = await released();
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_METRICS_PORT: '0' });
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', version, checks: { database: 'ok' } });
      const metricsUrl = /"metricsUrl":"(http:\/\/[^"]+)"/.exec(server.stdout())![1]!;
      const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(metrics).toContain('# TYPE petstore_build_info gauge');
      expect(metrics.split('\n').filter((line) => line.startsWith('petstore_build_info'))).toEqual([`petstore_build_info{version="${version}"} 1`]);
      const started = server.stdout().split('\n').find((line) => line.includes('"msg":"Pet Store listening"'));
      expect(JSON.parse(started!)).toMatchObject({ version });
      expect((await fetch(`${server.url}/livez`).then((r) => r.json()))).toEqual({ status: 'ok' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
