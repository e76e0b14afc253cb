// Copies the docs renderer (Redoc's standalone bundle and its licences) into dist/docs-assets at build time, so the
// published package serves the docs page from its own files: consumers install no renderer, no CDN is used.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const redoc = dirname(createRequire(import.meta.url).resolve('redoc/package.json'));
const target = new URL('../dist/docs-assets/', import.meta.url);
mkdirSync(target, { recursive: true });
for (const [from, to] of [
  ['bundles/redoc.standalone.js', 'redoc.standalone.js'],
  ['bundles/redoc.standalone.js.LICENSE.txt', 'redoc.standalone.js.LICENSE.txt'],
  ['LICENSE', 'REDOC-LICENSE.txt'],
]) {
  copyFileSync(join(redoc, from), new URL(to, target));
}
