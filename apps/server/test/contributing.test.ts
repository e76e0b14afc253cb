import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

/** The operation file CONTRIBUTING.md shows, as a contributor pastes it. */
const operationFile = /<!-- snippet: copy-pet -->\n```ts\n([\s\S]*?)\n```/.exec(contributing)?.[1];
const OPERATION = { name: 'copyPet', file: 'copy-pet' };
const OPERATIONS_DIR = 'packages/core/src/operations';

/** The suites that loop over the registry, run on the copy: a new operation is covered, or they say what to add. */
const DERIVED_SUITES = [
  'packages/core/src/service/pet-store.test.ts',
  'packages/core/src/telemetry/tracing.test.ts',
  'packages/rest/src/rest-handler.test.ts',
  'packages/rest/src/openapi/openapi-document.test.ts',
  'packages/rest/src/openapi/served-document.test.ts',
  'packages/rest/src/openapi/operation-inputs.test.ts',
  'packages/trpc/src/pets-router.test.ts',
];

const SKIPPED = /(^|\/)(node_modules|\.turbo)(\/|$)/;

/** Step 4 of CONTRIBUTING.md: the operation's import, and its name in `operations`, one a line. */
function register(registry: string): string {
  const lines = registry.split('\n');
  const start = lines.findIndex((line) => line.startsWith('export const operations = Object.freeze({'));
  const end = start < 0 ? -1 : lines.indexOf('});', start);
  if (end < 0) throw new Error('operations.ts no longer lists its operations one a line in Object.freeze({ … }): update this test and CONTRIBUTING.md step 4.');
  lines.splice(end, 0, `  ${OPERATION.name},`);
  lines.splice(lines.findLastIndex((line) => line.startsWith('import ')) + 1, 0, `import { ${OPERATION.name} } from './${OPERATION.file}.js';`);
  return lines.join('\n');
}

/** Every file under a folder (its dependencies and build caches aside), by path, with a digest of its content. */
function digests(dir: string, under = dir, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (SKIPPED.test(path)) continue;
    if (entry.isDirectory()) digests(path, under, into);
    else into.set(relative(under, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  return into;
}

/**
 * A scratch project of the packages' sources (and their `dist`, for the assets the sources read from it), with a
 * node_modules of its own: the workspace's packages linked to the copies, everything else to this repository's.
 */
function scratchProject(): string {
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-new-operation-'));
  cpSync(join(root, 'packages'), join(scratch, 'packages'), { recursive: true, filter: (path) => !SKIPPED.test(path) });
  cpSync(join(root, 'tsconfig.base.json'), join(scratch, 'tsconfig.base.json'));
  writeFileSync(join(scratch, 'package.json'), '{ "private": true, "type": "module" }\n');
  const modules = join(scratch, 'node_modules');
  mkdirSync(join(modules, '@petstore'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === '@petstore') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  for (const dir of readdirSync(join(scratch, 'packages'))) {
    const { name } = JSON.parse(readFileSync(join(scratch, 'packages', dir, 'package.json'), 'utf8')) as { name: string };
    symlinkSync(join(scratch, 'packages', dir), join(modules, name));
    // What npm installed for this package alone (a version other than the one at the root, as core's lru-cache).
    const own = join(root, 'packages', dir, 'node_modules');
    if (existsSync(own)) symlinkSync(own, join(scratch, 'packages', dir, 'node_modules'));
  }
  cpSync(fileURLToPath(new URL('./fixtures/new-operation-check.ts', import.meta.url)), join(scratch, 'check.test.ts'));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    `${JSON.stringify({
      extends: './tsconfig.base.json',
      compilerOptions: { noEmit: true, customConditions: ['@petstore/source'] },
      include: ['check.test.ts'],
    })}\n`,
  );
  writeFileSync(
    join(scratch, 'vitest.config.ts'),
    [
      "import { defineConfig } from 'vitest/config';",
      "const conditions = ['@petstore/source', 'node', 'default'];",
      `export default defineConfig({ resolve: { conditions }, ssr: { resolve: { conditions } }, test: { include: ${JSON.stringify(['check.test.ts', ...DERIVED_SUITES])}, testTimeout: 60_000, hookTimeout: 60_000 } });`,
      '',
    ].join('\n'),
  );
  return scratch;
}

/** A child's output in a failure's message, so that a suite's own words say what to add. */
async function inChild(command: string, args: string[], cwd: string) {
  // Our own database and vitest's variables stay out: the copy's suites run on PGlite, as a run of their own.
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TINYPOOL|DATABASE_URL$|REDIS_URL$)/.test(name))),
    NO_COLOR: '1',
  };
  try {
    return await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${[command, ...args].join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

describe('adding an operation as CONTRIBUTING.md says', { timeout: 600_000 }, () => {
  let scratch: string;
  let before: Map<string, string>;

  beforeAll(() => {
    expect(operationFile, 'CONTRIBUTING.md shows the operation file after <!-- snippet: copy-pet -->').toBeDefined();
    scratch = scratchProject();
    before = digests(join(scratch, 'packages'));
    writeFileSync(join(scratch, OPERATIONS_DIR, `${OPERATION.file}.ts`), `${operationFile}\n`);
    const registry = join(scratch, OPERATIONS_DIR, 'operations.ts');
    writeFileSync(registry, register(readFileSync(registry, 'utf8')));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('type-checks, with an in-process caller and a tRPC client typed from the new operation', async () => {
    await inChild(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], scratch);
  });

  it('serves it over REST, tRPC, the OpenAPI document and in-process, and the suites that loop over the registry cover it', async () => {
    const { stdout } = await inChild(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run'], scratch);
    expect(stdout).toMatch(new RegExp(`Test Files\\D+${DERIVED_SUITES.length + 1} passed`));
  });

  it('changed the operation file and the registry line, and nothing else', () => {
    const after = digests(join(scratch, 'packages'));
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path));
    expect(changed.sort()).toEqual([`core/src/operations/${OPERATION.file}.ts`, 'core/src/operations/operations.ts']);
    expect(statSync(join(scratch, OPERATIONS_DIR, `${OPERATION.file}.ts`)).isFile()).toBe(true);
  });
});
