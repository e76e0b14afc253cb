import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const MIGRATIONS = 'packages/core/src/storage/migrations';

/** A migration a scratch release adds: its name in the registry, its statements, and a floor if it is a contract step. */
export interface ScratchMigration {
  name: string;
  /** SQL statements, run in order by `up(db)`; `{pets}` names a table of the store, in its schema (`tableIn`). */
  statements: string[];
  /** Marks it as a contract step that moves the floor to this release (`@petstore/server@0.3.0`). */
  contract?: string;
}

/** A release built from this checkout plus migrations of its own, as a later commit would be. */
export interface ScratchRelease {
  dir: string;
  /** `@petstore/server@VERSION`, as its build named itself. */
  name: string;
  version: string;
  mainJs: string;
  cliJs: string;
  remove(): void;
}

const GIT = { GIT_AUTHOR_NAME: 'scratch', GIT_AUTHOR_EMAIL: 'scratch@example.com', GIT_COMMITTER_NAME: 'scratch', GIT_COMMITTER_EMAIL: 'scratch@example.com' };

/**
 * This checkout's build (its workspaces' `dist`, built by `npm run build`) copied into a scratch git repository with a
 * node_modules of its own (the workspaces linked to the copies, every other package to this checkout's), plus
 * `migrations` written into the core's registry as a contributor would write them, committed, and built: the core's
 * JavaScript for the changed files, then the build step that names the build (`<next>-dev+<its commit>`). With
 * `after`, a copy of that scratch release with one more commit.
 * @example const next = await scratchRelease([{ name: '2099-01-01-900-notes', statements: ['alter table {pets} add column note text'] }])
 */
export async function scratchRelease(migrations: ScratchMigration[], after?: ScratchRelease): Promise<ScratchRelease> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-next-release-'));
  const skip = /(^|\/)(node_modules|\.turbo)(\/|$)/;
  const from = after?.dir ?? root;
  for (const path of ['packages', 'apps/server', '.changeset', 'scripts', 'package.json', ...(after ? ['.git', '.gitignore'] : [])]) {
    cpSync(join(from, path), join(dir, path), { recursive: true, filter: (source) => !skip.test(relative(from, source)) });
  }
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@petstore'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (!name.startsWith('.') && name !== '@petstore') symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  for (const workspace of [...readdirSync(join(dir, 'packages')).map((name) => `packages/${name}`), 'apps/server']) {
    const { name } = JSON.parse(readFileSync(join(dir, workspace, 'package.json'), 'utf8')) as { name: string };
    symlinkSync(join(dir, workspace), join(modules, name));
    if (existsSync(join(root, workspace, 'node_modules'))) symlinkSync(join(root, workspace, 'node_modules'), join(dir, workspace, 'node_modules'));
  }
  if (!after) {
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n.turbo/\napps/server/build-info.json\n');
    const sh = (command: string, ...args: string[]) => run(command, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...GIT } });
    await sh('git', 'init', '-q');
    await sh('git', 'add', '-A');
    await sh('git', 'commit', '-q', '-m', 'This checkout');
  }
  return addMigrations(dir, migrations);
}

async function addMigrations(dir: string, migrations: ScratchMigration[]): Promise<ScratchRelease> {
  const registry = join(dir, MIGRATIONS, 'index.ts');
  let source = readFileSync(registry, 'utf8');
  const changed = [registry];
  for (const [i, migration] of migrations.entries()) {
    const id = `scratch${i}${migration.name.replace(/\W/g, '')}`;
    const file = join(dir, MIGRATIONS, `${migration.name}.ts`);
    writeFileSync(
      file,
      [
        "import { sql } from 'kysely';",
        "import type { Migration } from '../migration-types.js';",
        "import { tableIn } from '../schema.js';",
        '',
        `export const ${id} = (schema: string | undefined): Migration => ({`,
        '  async up(db) {',
        ...migration.statements.map((statement) => `    await sql\`${statement.replace(/\{(\w+)\}/g, (_, table: string) => `\${tableIn(schema, '${table}')}`)}\`.execute(db);`),
        '  },',
        '});',
        '',
      ].join('\n'),
    );
    changed.push(file);
    const entry = migration.contract ? `contractStep(${JSON.stringify(migration.contract)}, ${id})` : id;
    source = source.replace(/^(import [^\n]+\n)(?!import )/m, `$1import { ${id} } from './${migration.name}.js';\n`);
    source = source.replace(/^};$/m, `  '${migration.name}': ${entry},\n};`);
  }
  writeFileSync(registry, source);
  transpile(dir, changed);
  const sh = (command: string, ...args: string[]) => run(command, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...GIT } });
  await sh('git', 'add', '-A');
  await sh('git', 'commit', '-q', '-m', `Migrations ${migrations.map((m) => m.name).join(', ')}`);
  await sh(process.execPath, 'scripts/build-info.mjs');
  const { version } = JSON.parse(readFileSync(join(dir, 'apps/server/build-info.json'), 'utf8')) as { version: string };
  return {
    dir,
    name: `@petstore/server@${version}`,
    version,
    mainJs: join(dir, 'apps/server/dist/main.js'),
    cliJs: join(dir, 'apps/server/dist/cli.js'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The core's JavaScript for the changed sources, emitted with its build configuration (ESM, as NodeNext emits it for the package). */
function transpile(dir: string, files: string[]) {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'packages/core/tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('packages/core/tsconfig.build.json cannot be read');
  const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext };
  for (const file of files) {
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`);
    const out = join(config.options.outDir!, relative(config.options.rootDir!, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
}
