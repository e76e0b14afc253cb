// Build step: an initialised PGlite cluster with the service's schema, as a gzipped tarball. A new embedded
// database starts from it (unpacked into its folder, or loaded by PGlite for `memory://`) instead of running initdb
// (seconds, and a memory peak of several hundred MB) and every migration on first start.
import { writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { migrateToLatest } from '@petstore/core';
import { Kysely } from 'kysely';
import { createPGliteDialect } from '../dist/pglite-dialect.js';

const target = new URL('../dist/pglite-template.tar.gz', import.meta.url);
const pglite = await PGlite.create('memory://');
const db = new Kysely({ dialect: createPGliteDialect(pglite) });
await migrateToLatest(db);
await pglite.query('checkpoint');
const dump = await pglite.dumpDataDir('gzip');
await writeFile(target, Buffer.from(await dump.arrayBuffer()));
await db.destroy();
