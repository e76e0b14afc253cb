// Build step: an initialised, empty PGlite cluster as a gzipped tarball, so a new embedded database starts from it
// instead of running initdb (several seconds and a memory peak of several hundred MB) on first start.
import { writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';

const target = new URL('../dist/pglite-template.tar.gz', import.meta.url);
const db = await PGlite.create('memory://');
const dump = await db.dumpDataDir('gzip');
await writeFile(target, Buffer.from(await dump.arrayBuffer()));
await db.close();
