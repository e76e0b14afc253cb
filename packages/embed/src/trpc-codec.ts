import type { PetStore } from '@petstore/core';
import { errorResponse, type Codec } from '@petstore/http';

/** Where tRPC sits under the handler's base path. */
export const TRPC_PREFIX = '/trpc';

const MISSING_WARNING =
  'tRPC under /trpc is not served: it needs the package @trpc/server, which is not installed (npm install @trpc/server). ' +
  'Requests there get 404 not_found; REST under /v1 is served as usual.';

/** Whether the import failed because `@trpc/server` (an optional peer) is not installed, not for any other reason. */
function isTrpcMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /'@trpc\/server[/']/.test(message);
}

/**
 * The tRPC codec, loaded when a handler is made rather than when the package is imported: `@trpc/server` (and the
 * TypeScript it asks for as a peer) is an optional peer, installed only by hosts that serve tRPC. Without it the codec
 * answers every path under `/trpc` with the API's 404, and the process is warned once (`PETSTORE_TRPC_MISSING`), when
 * the first such request comes, with the package to install.
 * @example const trpc = await loadTrpcCodec(store, '/petstore')
 */
export async function loadTrpcCodec(store: PetStore, basePath: string): Promise<Codec> {
  // A variable, so that bundlers and the type checker do not insist on the optional package.
  const name = '@petstore/trpc';
  try {
    const { createTrpcCodec } = (await import(name)) as typeof import('@petstore/trpc');
    return createTrpcCodec({ store, prefix: TRPC_PREFIX, basePath, restPrefix: '/v1' });
  } catch (error) {
    if (!isTrpcMissing(error)) throw error;
    let warned = false;
    return {
      prefix: TRPC_PREFIX,
      match() {
        if (!warned) {
          warned = true;
          process.emitWarning(MISSING_WARNING, { code: 'PETSTORE_TRPC_MISSING' });
        }
        return { kind: 'missing' };
      },
      allows: () => undefined,
      encode: () => {
        throw new Error('unreachable: the stand-in tRPC codec makes no calls');
      },
      // The 404 of a path under /trpc, as the Error body (the envelope needs tRPC).
      encodeError: (failure) => errorResponse(failure),
    };
  }
}
