/**
 * Loads a package the drivers need for one feature only, so that hosts without the feature neither install nor
 * load it; when it is missing, the error names the package to install and what needs it.
 * @example const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'The redis rate-limit store')
 */
export async function loadOptional<T>(name: string, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${name}'`)) {
      throw new Error(`${feature} needs the package ${name}, which is not installed: npm install ${name}`, { cause: error });
    }
    throw error;
  }
}
