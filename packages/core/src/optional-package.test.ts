import { describe, expect, it } from 'vitest';
import { loadOptional } from './optional-package.js';

describe('a package loaded only for the feature that needs it', () => {
  it('names the package to install when it is missing', async () => {
    // A real dynamic import of a package that is not installed, as `@petstore/pglite` is for a host on PostgreSQL.
    const missing = '@petstore/not-installed-package';
    await expect(loadOptional(missing, () => import(missing), 'The embedded database (dataDir)')).rejects.toThrow(
      'The embedded database (dataDir) needs the package @petstore/not-installed-package, which is not installed: npm install @petstore/not-installed-package',
    );
  });

  it('passes any other failure through, and loads an installed package', async () => {
    const broken = new Error('Cannot find package "tar" imported from a file of @petstore/pglite');
    await expect(loadOptional('@petstore/pglite', () => Promise.reject(broken), 'x')).rejects.toBe(broken);
    const { loadOptional: loaded } = await loadOptional('./optional-package.js', () => import('./optional-package.js'), 'x');
    expect(loaded).toBe(loadOptional);
  });
});
