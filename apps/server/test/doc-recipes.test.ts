import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { recipeDocs, recipeNames, recipesIn } from './doc-recipes.js';
import { haproxyInstalled, writeHaproxyRecipe } from './haproxy.js';

const run = promisify(execFile);

/** Every fenced block of a markdown file, with the line above it. */
function blocksOf(file: string) {
  const text = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
  return [...text.matchAll(/^(.*)\n```([a-z]*)\n([\s\S]*?)^```$/gm)].map(([, above, language, body]) => ({ above: above!, language: language!, body: body! }));
}

const PROGRAMS = /\b(haproxy|pgbouncer|caddy|nginx|systemd|systemctl)\b/i;
const CONFIG_LANGUAGES = new Set(['haproxy', 'ini', 'nginx', 'caddyfile', 'http', 'systemd']);

describe('the recipes of the README and docs/', () => {
  it('mark every block that configures or runs a proxy, a pooler or a service manager, so a test runs it', () => {
    const unmarked = recipeDocs.flatMap((file) =>
      blocksOf(file)
        .filter(({ language, body }) => CONFIG_LANGUAGES.has(language) || PROGRAMS.test(body))
        .filter(({ above }) => !/^<!-- recipe: \S+ -->$/.test(above))
        .map(({ body }) => `${file}: ${body.split('\n', 1)[0]}`),
    );
    expect(unmarked).toEqual([]);
  });

  it('are exactly the ones the tests read, each once', () => {
    const marked = recipeDocs.flatMap((file) => [...recipesIn(file).keys()]);
    expect(marked.sort()).toEqual([...recipeNames].sort());
  });

  it('keep PgBouncer comments on lines of their own (Debian’s 1.18 refuses one after a value)', () => {
    const ini = recipeDocs.map((file) => recipesIn(file).get('pgbouncer.ini')).find((text) => text !== undefined)!;
    expect(ini.split('\n').filter((line) => /^[^;#]*=.*[;#]/.test(line))).toEqual([]);
  });

  it.runIf(haproxyInstalled || process.env.CI)('hold a haproxy.cfg that HAProxy checks as valid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-haproxy-check-'));
    try {
      const config = await writeHaproxyRecipe(dir, 8443, ['127.0.0.1:3001', '127.0.0.1:3002', '127.0.0.1:3003']);
      // The check the docs give before a reload.
      const { stdout } = await run('haproxy', ['-c', '-f', config]);
      expect(stdout).toContain('Configuration file is valid');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
