import { createRequire } from 'node:module';

/** This package's release, from its package.json: what an embedded handler's `/healthz` names by default. */
export const embedVersion: string = createRequire(import.meta.url)('../package.json').version;
