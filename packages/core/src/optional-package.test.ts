import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOptional, requireOptional } from './optional-package.js';

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

describe('an optional package required once at import (the OpenTelemetry API)', () => {
  const name = '@opentelemetry/api';
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** The URL of a module in a new folder, where `@opentelemetry/api` is installed running `main` (if given). */
  async function moduleBeside(main?: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-optional-'));
    folders.push(dir);
    if (main !== undefined) {
      const pkg = join(dir, 'node_modules', name);
      await mkdir(pkg, { recursive: true });
      await writeFile(join(pkg, 'package.json'), JSON.stringify({ name, version: '1.9.1', main: 'index.js' }));
      await writeFile(join(pkg, 'index.js'), main);
    }
    return pathToFileURL(join(dir, 'host.js')).href;
  }

  it('is undefined when the package is not installed', async () => {
    expect(requireOptional(name, await moduleBeside())).toBeUndefined();
  });

  it('returns the installed package', async () => {
    expect(requireOptional<{ trace: string }>(name, await moduleBeside("exports.trace = 'the API';"))?.trace).toBe('the API');
  });

  it('throws when an installed package fails to load, instead of running as if it were absent', async () => {
    const broken = await moduleBeside("throw new Error('a broken install');");
    expect(() => requireOptional(name, broken)).toThrow('a broken install');
    const missingFile = await moduleBeside("require('./build/src/index.js');");
    expect(() => requireOptional(name, missingFile)).toThrow(/Cannot find module '\.\/build\/src\/index\.js'/);
    const missingDependency = await moduleBeside("require('@opentelemetry/not-installed');");
    expect(() => requireOptional(name, missingDependency)).toThrow(/Cannot find module '@opentelemetry\/not-installed'/);
  });
});
