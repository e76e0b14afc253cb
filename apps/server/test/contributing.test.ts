import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

/** A block CONTRIBUTING.md shows after `<!-- snippet: NAME -->`, as a contributor pastes it. */
const snippet = (name: string) => [...contributing.matchAll(/<!-- snippet: ([a-z-]+) -->\n```ts\n([\s\S]*?)\n```/g)].find(([, found]) => found === name)?.[2];
/** CONTRIBUTING.md's two examples: one with no new query, one with its query (and the file its snippet is). */
const OPERATIONS = [
  { name: 'copyPet', file: 'copy-pet' },
  { name: 'countPetsInCategory', file: 'count-pets-in-category' },
] as const;
const OPERATIONS_DIR = 'packages/core/src/operations';
const REPOSITORY = 'packages/core/src/storage/pet-repository.ts';

/**
 * The suites that loop over the registry, run on the copy: a new operation is covered, or they say what to add. The
 * examples' test type-checks and runs both client examples, on the REST types the build generated for the copy; the
 * docs test checks docs/api.md's operations as the build wrote them.
 */
const DERIVED_SUITES = [
  'packages/core/src/service/pet-store.test.ts',
  'packages/core/src/telemetry/tracing.test.ts',
  'packages/rest/src/rest-handler.test.ts',
  'packages/rest/src/openapi/openapi-document.test.ts',
  'packages/rest/src/openapi/served-document.test.ts',
  'packages/rest/src/openapi/operation-inputs.test.ts',
  'packages/trpc/src/pets-router.test.ts',
  'apps/server/test/api-operations-doc.test.ts',
  'examples/clients.test.ts',
];

/** What the copy holds of this repository: the sources (with their dist) and the files generated from them. */
const COPIED = ['packages', 'apps/server', 'examples', 'docs/api.md', 'scripts', 'tsconfig.base.json', 'package.json', 'biome.jsonc'];
/** What the build writes, which the contributor does not edit. */
const GENERATED = /(^|\/)(dist|\.turbo)(\/|$)|^examples\/rest-client\/schema\.d\.ts$|^docs\/api\.md$|^apps\/server\/build-info\.json$/;

const SKIPPED = /(^|\/)(node_modules|\.turbo)(\/|$)|schema\.d\.ts$/;

/** Step 4 of CONTRIBUTING.md: the operation's import, and its name in `operations`, one a line. */
function register(registry: string, operation: (typeof OPERATIONS)[number]): string {
  const lines = registry.split('\n');
  const start = lines.findIndex((line) => line.startsWith('export const operations = Object.freeze({'));
  const end = start < 0 ? -1 : lines.indexOf('});', start);
  if (end < 0) throw new Error('operations.ts no longer lists its operations one a line in Object.freeze({ … }): update this test and CONTRIBUTING.md step 4.');
  lines.splice(end, 0, `  ${operation.name},`);
  lines.splice(lines.findLastIndex((line) => line.startsWith('import ')) + 1, 0, `import { ${operation.name} } from './${operation.file}.js';`);
  return lines.join('\n');
}

/**
 * Step 2 of CONTRIBUTING.md for `countInCategory`: each snippet at the end of the block it belongs in (the interface,
 * the verbs, the object `createPetRepository` returns), found by the line that opens the block.
 */
function addQuery(repository: string): string {
  const lines = repository.split('\n');
  const into = (opening: RegExp, closing: string, snippetName: string) => {
    const start = lines.findIndex((line) => opening.test(line));
    const end = start < 0 ? -1 : lines.indexOf(closing, start);
    const text = snippet(snippetName);
    if (end < 0 || text === undefined) throw new Error(`pet-repository.ts or CONTRIBUTING.md changed (${snippetName}): update this test and CONTRIBUTING.md step 2.`);
    lines.splice(end, 0, text);
  };
  into(/^export interface PetRepository \{$/, '}', 'count-method');
  into(/^export const petQueryVerbs\b/, '});', 'count-verb');
  into(/^export function createPetRepository\(/, '  };', 'count-query');
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
 * A scratch project of the repository's sources (with their `dist`, for the assets the sources read from it), with a
 * node_modules of its own: the workspace's packages linked to the copies, everything else to this repository's.
 */
function scratchProject(): string {
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-new-operation-'));
  for (const path of COPIED) cpSync(join(root, path), join(scratch, path), { recursive: true, filter: (from) => !SKIPPED.test(from) });
  // Lint as the repository does, without git (the copy is no repository): the same rules and files.
  const biome = readFileSync(join(root, 'biome.jsonc'), 'utf8').replace(/"vcs": \{[^}]*\}/, '"vcs": { "enabled": false }');
  writeFileSync(join(scratch, 'biome.jsonc'), biome);
  const modules = join(scratch, 'node_modules');
  mkdirSync(join(modules, '@petstore'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === '@petstore') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  for (const dir of [...readdirSync(join(scratch, 'packages')).map((name) => `packages/${name}`), 'apps/server']) {
    const { name } = JSON.parse(readFileSync(join(scratch, dir, 'package.json'), 'utf8')) as { name: string };
    symlinkSync(join(scratch, dir), join(modules, name));
    // What npm installed for this package alone (a version other than the one at the root, as core's lru-cache).
    const own = join(root, dir, 'node_modules');
    if (existsSync(own)) symlinkSync(own, join(scratch, dir, 'node_modules'));
  }
  cpSync(fileURLToPath(new URL('./fixtures/new-operation-check.ts', import.meta.url)), join(scratch, 'check.test.ts'));
  // The type check of `npm run typecheck` (every package's sources and tests, the server's, the type tests), on the
  // sources rather than the packages' declarations, with the fixture's calls of the new operations. The client is
  // left out: its lib has the DOM, under which the sources of packages its tests import (pglite's) do not type-check
  // (npm run typecheck reads their declarations); its own test builds it with one more operation.
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    `${JSON.stringify({
      extends: './tsconfig.base.json',
      compilerOptions: { noEmit: true, customConditions: ['@petstore/source'] },
      include: ['check.test.ts', 'packages/*/src', 'apps/server/src', 'apps/server/test'],
      exclude: ['packages/client', 'apps/server/test/fixtures/new-operation-check.ts'],
    })}\n`,
  );
  writeFileSync(
    join(scratch, 'vitest.config.ts'),
    [
      "import { defineConfig } from 'vitest/config';",
      "const conditions = ['@petstore/source', 'node', 'default'];",
      `export default defineConfig({ resolve: { conditions }, ssr: { resolve: { conditions } }, test: { include: ${JSON.stringify(['check.test.ts', ...DERIVED_SUITES])}, testTimeout: 120_000, hookTimeout: 120_000 } });`,
      '',
    ].join('\n'),
  );
  return scratch;
}

/**
 * What `npm run build` does with the new operation: core's JavaScript, emitted from its build configuration (only the
 * JavaScript: the checks read the sources), then each generating step of the root `build` script after turbo (the
 * example's REST types, docs/api.md's operations), run in the copy as written.
 */
async function build(scratch: string): Promise<void> {
  const config = ts.getParsedCommandLineOfConfigFile(join(scratch, 'packages/core/tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('packages/core/tsconfig.build.json cannot be read');
  for (const file of config.fileNames) {
    // The package is ESM ("type": "module"): what NodeNext emits for it, which transpileModule, seeing one file, cannot tell.
    const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext };
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file });
    const out = join(config.options.outDir!, relative(config.options.rootDir!, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  const { scripts } = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as { scripts: { build: string } };
  const steps = scripts.build.split('&&').map((step) => step.trim().split(/\s+/)).filter(([command]) => command === 'node');
  expect(steps.length, 'the root build script generates files after turbo').toBeGreaterThan(0);
  for (const [, ...args] of steps) await inChild(process.execPath, args, scratch);
}

/** A child's output in a failure's message, so that a suite's own words say what to add. */
async function inChild(command: string, args: string[], cwd: string) {
  // Our own database and vitest's variables stay out: the copy's suites run on PGlite, as a run of their own. So does
  // CI: the copy is a contributor's checkout, whose build writes docs/api.md's operations (under CI it only checks).
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TINYPOOL|DATABASE_URL$|REDIS_URL$|CI$)/.test(name))),
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

  beforeAll(async () => {
    scratch = scratchProject();
    before = digests(scratch);
    for (const operation of OPERATIONS) {
      const file = snippet(operation.file);
      expect(file, `CONTRIBUTING.md shows the operation file after <!-- snippet: ${operation.file} -->`).toBeDefined();
      writeFileSync(join(scratch, OPERATIONS_DIR, `${operation.file}.ts`), `${file}\n`);
      const registry = join(scratch, OPERATIONS_DIR, 'operations.ts');
      writeFileSync(registry, register(readFileSync(registry, 'utf8'), operation));
    }
    writeFileSync(join(scratch, REPOSITORY), addQuery(readFileSync(join(scratch, REPOSITORY), 'utf8')));
    await build(scratch);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('type-checks every package but the client, its tests and type tests, with an in-process caller and a tRPC client of the new operations', async () => {
    await inChild(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], scratch);
  });

  it('passes lint', async () => {
    await inChild(process.execPath, [join(root, 'node_modules/@biomejs/biome/bin/biome'), 'lint', '.'], scratch);
  });

  it('serves it over REST, tRPC, the OpenAPI document and in-process, and the suites that loop over the registry, the examples and the docs test cover it', async () => {
    const { stdout } = await inChild(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run'], scratch);
    expect(stdout).toMatch(new RegExp(`Test Files\\D+${DERIVED_SUITES.length + 1} passed`));
  });

  it('had the build write their rows of docs/api.md and their REST types', () => {
    for (const { name } of OPERATIONS) {
      expect(readFileSync(join(scratch, 'docs/api.md'), 'utf8')).toContain(`| \`${name}\` "`);
      expect(readFileSync(join(scratch, 'examples/rest-client/schema.d.ts'), 'utf8')).toContain(`${name}: {`);
    }
  });

  it('changed the operation files, the registry lines and the query, and nothing else', () => {
    const after = digests(scratch);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path));
    expect(changed.filter((path) => !GENERATED.test(path)).sort()).toEqual(
      [...OPERATIONS.map(({ file }) => `${OPERATIONS_DIR}/${file}.ts`), `${OPERATIONS_DIR}/operations.ts`, REPOSITORY].sort(),
    );
  });
});
