// Copies the docs renderer (Redoc's standalone bundle and its licences) into dist/docs-assets at build time, so the
// published package serves the docs page from its own files: consumers install no renderer, no CDN is used. The
// bundle's one remote address (the attribution logo) is made an empty image, so the page phones nowhere; the bundle
// is then compressed here, once (gzip and brotli at their best), never per request, and named in a manifest by its
// content hash, so the page can load it under a name that never changes meaning (cached as immutable).
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

const redoc = dirname(createRequire(import.meta.url).resolve('redoc/package.json'));
const target = new URL('../dist/docs-assets/', import.meta.url);
mkdirSync(target, { recursive: true });
for (const [from, to] of [
  ['bundles/redoc.standalone.js.LICENSE.txt', 'redoc.standalone.js.LICENSE.txt'],
  ['LICENSE', 'REDOC-LICENSE.txt'],
]) {
  copyFileSync(join(redoc, from), new URL(to, target));
}
const bundle = Buffer.from(readFileSync(join(redoc, 'bundles/redoc.standalone.js'), 'utf8').replaceAll(REMOTE_LOGO, EMPTY_IMAGE));
const hash = createHash('sha256').update(bundle).digest('base64url').slice(0, 16);
writeFileSync(new URL('redoc.standalone.js', target), bundle);
writeFileSync(new URL('redoc.standalone.js.gz', target), gzipSync(bundle, { level: 9 }));
writeFileSync(
  new URL('redoc.standalone.js.br', target),
  brotliCompressSync(bundle, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bundle.length } }),
);
writeFileSync(new URL('manifest.json', target), `${JSON.stringify({ 'redoc.standalone.js': { hash } }, null, 2)}\n`);
