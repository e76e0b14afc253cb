import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli, startProcess } from './helpers.js';

// What the built service says it runs is what the build named it (scripts/build-info.mjs, build-info.test.ts): its
// package.json's version for a release, the next version with the commit between releases.
const read = async (file: string) => JSON.parse(await readFile(new URL(file, import.meta.url), 'utf8')) as { version: string };
const released = async () => (await read('../build-info.json')).version;

describe('the release the service names', () => {
  it('is the version its build was named, which between releases is not a release', async () => {
    const version = await released();
    const pending = (await readdir(new URL('../../../.changeset/', import.meta.url))).filter((name) => name.endsWith('.md') && name !== 'README.md');
    if (pending.length === 0) expect(version).toBe((await read('../package.json')).version);
    else {
      expect(version).toMatch(/^\d+\.\d+\.\d+-dev(\+[0-9a-f]{7,40})?$/);
      expect(version.startsWith(`${(await read('../package.json')).version}-`)).toBe(false);
    }
  });

  it('is printed by petstore --version (and -v), without opening any database', async () => {
    const version = await released();
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
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
