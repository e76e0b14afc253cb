import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** A file the build writes to `dist/`, found from `dist/` itself or from `src/` (tests run on the sources). */
export function builtFile(name: string): string | undefined {
  for (const candidate of [`./${name}`, `../dist/${name}`]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** The name of the template in `dist/`. */
export const TEMPLATE_FILE = 'pglite-template.tar.gz';

/**
 * The initialised cluster, with the schema and no rows, made at build time, for PGlite's `loadDataDir`; undefined if the build did not
 * make one (PGlite then runs initdb itself).
 * @example await PGlite.create('memory://', { loadDataDir: await pgliteTemplate() })
 */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  const path = builtFile(TEMPLATE_FILE);
  return path ? new Blob([await readFile(path)]) : undefined;
}
