import { createRequire } from 'node:module';

/** This package's release, from its package.json: the default name a database records for what opened it. */
export const coreVersion: string = createRequire(import.meta.url)('../package.json').version;
