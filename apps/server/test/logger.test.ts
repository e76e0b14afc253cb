import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { outputOf } from '@petstore/testing';
import { describe, expect, it } from 'vitest';

const loggerJs = fileURLToPath(new URL('../dist/logger.js', import.meta.url));

/** Runs `script` in a child whose stdout is a pipe (as under a supervisor), with `createLogger` in scope. */
async function run(script: string) {
  const code = `const { createLogger } = await import(${JSON.stringify(loggerJs)}); ${script}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { code: exitCode, stdout: out } = await outputOf(child);
  return { exitCode, lines: out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('the service logger on a pipe', () => {
  it('writes every line, in order, across many turns of the event loop', async () => {
    const { exitCode, lines } = await run(`
      const log = createLogger('info');
      for (let turn = 0; turn < 50; turn++) {
        for (let i = 0; i < 40; i++) log.info({ n: turn * 40 + i }, 'request');
        await new Promise((resolve) => setImmediate(resolve));
      }
      setTimeout(() => {}, 200);`);
    expect(exitCode).toBe(0);
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });

  it('writes a lone line within moments, while the process keeps running', async () => {
    const code = `const { createLogger } = await import(${JSON.stringify(loggerJs)}); createLogger('info').info('lone'); setTimeout(() => {}, 5000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
      expect(JSON.parse(chunk.toString())).toMatchObject({ msg: 'lone' });
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });

  it('loses no line logged in the same turn as process.exit', async () => {
    const { exitCode, lines } = await run(`
      const log = createLogger('info');
      log.info('before');
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.info({ signal: 'SIGTERM' }, 'Stopping');
      log.info('Stopped');
      process.exit(3);`);
    expect(exitCode).toBe(3);
    expect(lines.map((line) => line.msg)).toEqual(['before', 'Stopping', 'Stopped']);
  });

  it('stamps each line with the ISO time of the millisecond it was logged', async () => {
    const { lines } = await run(`
      const log = createLogger('info');
      log.info('a');
      const until = Date.now() + 5;
      while (Date.now() < until);
      log.info('b');`);
    const [a, b] = lines.map((line) => line.time as string);
    expect(a).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(b!) - Date.parse(a!)).toBeGreaterThanOrEqual(5);
    expect(lines[0]).toMatchObject({ level: 30, service: 'petstore', msg: 'a' });
  });
});
