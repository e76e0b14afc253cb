import { createRequire } from 'node:module';

/**
 * The error for a feature whose optional package is not installed: it names the package to install and what needs it.
 * @example throw missingPackage('ioredis', 'The redis rate-limit store')
 */
export function missingPackage(name: string, feature: string, cause?: unknown): Error {
  return new Error(`${feature} needs the package ${name}, which is not installed: npm install ${name}`, { cause });
}

/**
 * Whether `error` says that the package `name` itself cannot be found (by `import` or `require`), as opposed to a
 * file or a dependency of it, or any other failure of an installed package while it loads.
 */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * Loads a package the drivers need for one feature only, so that hosts without the feature neither install nor
 * load it; when it is missing, the error names the package to install and what needs it.
 * @example const { Redis } = await loadOptional(name, () => import(name), 'The redis rate-limit store') // name: 'ioredis'
 */
export async function loadOptional<T>(name: string, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) throw missingPackage(name, feature, error);
    throw error;
  }
}

/**
 * Requires an optional package as the module at `from` resolves it (its own `node_modules`, then the host's), once:
 * `undefined` when the package is not installed; any other failure to load it is thrown.
 * @example const api = requireOptional<typeof import('@opentelemetry/api')>('@opentelemetry/api', import.meta.url)
 */
export function requireOptional<T>(name: string, from: string | URL): T | undefined {
  try {
    return createRequire(from)(name) as T;
  } catch (error) {
    if (isMissing(error, name)) return undefined;
    throw error;
  }
}
