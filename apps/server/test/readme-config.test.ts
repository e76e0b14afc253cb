import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

/** Every environment variable the config schema reads: it is handed an environment that records each look-up. */
function variablesTheServiceReads(): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string' && /^[A-Z][A-Z0-9_]*$/.test(name)) read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return [...read].sort();
}

/** The variables named in the first column of the README's configuration table. */
async function variablesTheReadmeLists(): Promise<string[]> {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)).sort();
}

describe("the README's configuration table", () => {
  it('lists every variable the config schema reads, and nothing else', async () => {
    const read = variablesTheServiceReads();
    expect(read).toEqual(expect.arrayContaining(['PORT', 'HOST', 'DATABASE_URL']));
    expect(await variablesTheReadmeLists()).toEqual(read);
  });
});
