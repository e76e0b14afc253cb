import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('.', import.meta.url));
/**
 * What the core may import: its domain libraries (bounded caches and address parsing among them), Node's crypto, Node's module loader (the optional API), and
 * OpenTelemetry's API (the spans of its calls and queries); nothing of HTTP, tRPC, DNS or database drivers.
 */
const ALLOWED = new Set(['zod', 'kysely', 'rate-limiter-flexible', 'lru-cache', 'ipaddr.js', 'node:crypto', 'node:module', '@opentelemetry/api']);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      // src/testing holds test helpers, built and published with nothing (tsconfig.build.json, package.json files).
      if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path);
      return entry.name.endsWith('.ts') && !entry.name.includes('.test') ? [path] : [];
    }),
  );
  return files.flat();
}

describe('the core package', () => {
  it('imports only its domain libraries, never HTTP, tRPC, database drivers or process globals', async () => {
    const offences: string[] = [];
    for (const file of await sourceFiles(SOURCE)) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)) {
        const specifier = match[1] ?? match[2];
        if (specifier && !specifier.startsWith('.') && !ALLOWED.has(specifier)) {
          offences.push(`${relative(SOURCE, file)} imports ${specifier}`);
        }
      }
      if (/\bprocess\.(env|argv|exit)\b/.test(text)) offences.push(`${relative(SOURCE, file)} reads process globals`);
    }
    expect(offences).toEqual([]);
  });
});
