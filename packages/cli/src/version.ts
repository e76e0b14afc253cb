import { createRequire } from 'node:module';

/** This tool's release, from its package.json: `npx @petstore/cli --version`. */
export const cliVersion: string = createRequire(import.meta.url)('../package.json').version;
