import type { RequestLogger } from '@petstore/http';

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The mount a path reveals: the prefix before the first of the surface's paths it holds below its start
 * (`/petstore` of `/petstore/v1/pets`), or undefined when it holds none.
 */
function mountOf(path: string, surface: readonly string[]): string | undefined {
  for (let slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
    const rest = path.slice(slash);
    if (surface.some((own) => isUnder(rest, own))) return path.slice(0, slash);
  }
  return undefined;
}

/** What the warning is told of each request: whether its path is the handler's, and what it was. */
export type OutsideBasePath = (path: string, own: boolean) => void;

/**
 * Watches a handler's paths for a host that mounted it under a prefix without giving it as `basePath` (a Hono route
 * `app.all('/petstore/*', …)`, a Next.js route handler at `app/petstore/[...path]`): every request then answers 404,
 * and nothing says why. While no request has been the handler's own, the first whose path holds the surface under
 * another prefix (`/petstore/v1/pets` for a `basePath` of '') is warned of, once, naming the `basePath` to give:
 * through the host's `logger` (its `warn`, else `info`), else as a process warning (`PETSTORE_BASE_PATH`), else on
 * the console where there is no process (Workers). Once a request is the handler's, it never warns.
 * @example const watch = outsideBasePath('', ['/v1', '/trpc'], logger); watch('/petstore/v1/pets', false)
 */
export function outsideBasePath(basePath: string, surface: readonly string[], logger: RequestLogger | undefined): OutsideBasePath {
  let settled = false;
  return (path, own) => {
    if (settled) return;
    if (own) {
      settled = true;
      return;
    }
    const mount = mountOf(path, surface);
    if (mount === undefined) return;
    settled = true;
    const message =
      `The Pet Store handler answered 404 to ${path}, outside its basePath ('${basePath}'), and has served nothing yet: ` +
      `a host that mounts it under ${mount} must say so, createFetchHandler(store, { basePath: '${mount}' }).`;
    if (logger) (logger.warn ?? logger.info).call(logger, { path, basePath, mount }, message);
    else if (typeof globalThis.process?.emitWarning === 'function') globalThis.process.emitWarning(message, { code: 'PETSTORE_BASE_PATH' });
    else console.warn(message);
  };
}
