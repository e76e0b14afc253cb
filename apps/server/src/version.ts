import { createRequire } from 'node:module';

/** The release of the service, from its package.json: `petstore --version`, `/healthz` and `petstore_build_info`. */
export const version: string = createRequire(import.meta.url)('../package.json').version;
