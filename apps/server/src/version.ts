import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What `npm run build` wrote (scripts/build-info.mjs): `0.2.0` for a release, `0.2.0-dev+2b2a807` between releases. */
function built(): string | undefined {
  try {
    return (require('../build-info.json') as { version?: unknown }).version as string | undefined;
  } catch {
    return undefined;
  }
}

/**
 * The release this build of the service is, as the build named it: `petstore --version`, `/healthz`,
 * `petstore_build_info`, and the release recorded in the database. A build the build step did not name (compiled by
 * `tsc` alone) says so after its package.json's version: `0.1.0+unnamed`.
 */
export const version: string = built() ?? `${(require('../package.json') as { version: string }).version}+unnamed`;
