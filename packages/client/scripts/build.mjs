// Builds @petstore/client without server code. The sources import the core's operations registry; the bundle gets
// a module in its place holding only what the client reads of each operation (ROUTE_FIELDS), computed from the
// registry at build time, so a new operation appears on the client with no edit here. tsc writes the declarations
// (the zod schemas' types, expanded from the registry's type), and the methods' declarations are written from the
// registry with each route and, on a deprecated operation, `@deprecated`. Nothing published may name @petstore/core.
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What the client reads of an operation at run time (`Route` in src/operations.ts). */
export const ROUTE_FIELDS = ['operationId', 'method', 'path', 'successStatus', 'writes', 'deprecation', 'stability', 'ownLimitPerMinute'];

const literal = (value) =>
  value instanceof Date
    ? `new Date(${JSON.stringify(value.toISOString())})`
    : value !== null && typeof value === 'object'
      ? `Object.freeze({ ${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`).join(', ')} })`
      : JSON.stringify(value);

/**
 * The module that stands for `@petstore/core` in the bundle: `operations`, each with its route fields only.
 * @example routesModule((await import('@petstore/core')).operations)
 */
export function routesModule(operations) {
  const routes = Object.fromEntries(
    Object.entries(operations).map(([id, op]) => [
      id,
      Object.fromEntries(ROUTE_FIELDS.filter((field) => op[field] !== undefined).map((field) => [field, op[field]])),
    ]),
  );
  return `export const operations = ${literal(routes)};\n`;
}

const day = (date) => date.toISOString().slice(0, 10);

/**
 * dist/operation-methods.d.ts: one method per operation, documented with its route, stability and deprecation.
 * @example await writeFile('dist/operation-methods.d.ts', methodDeclarations(operations))
 */
export function methodDeclarations(operations) {
  const ops = Object.values(operations);
  const members = ops.map((op) => {
    const lines = [`\`${op.method} ${op.path}\` (${op.operationId}), answering ${op.successStatus}.`];
    if (op.writes) lines.push('Sent with an `Idempotency-Key`, the same on every retry, so a retry never applies it twice.');
    if (op.stability) lines.push(`@${op.stability === 'beta' ? 'beta' : 'experimental'}`);
    if (op.deprecation) {
      const { since, sunset, successor } = op.deprecation;
      const replacement = ops.find((other) => other.path === successor && other.method === 'GET' && !other.deprecation);
      const use = replacement ? `${replacement.operationId} (\`GET ${successor}\`)` : `\`${successor}\``;
      lines.push(`@deprecated Since ${day(since)}; from ${day(sunset)} the service answers 410 \`gone\`. Use ${use} instead.`);
    }
    const doc = ['    /**', ...lines.map((line) => `     * ${line}`), '     */'].join('\n');
    return `${doc}\n    readonly ${op.operationId}: OperationMethod<${JSON.stringify(op.operationId)}>;`;
  });
  return [
    "import type { OperationMethod } from './operation-method.js';",
    '/** One method per operation of the service, named by its operationId. */',
    'export interface OperationMethods {',
    ...members,
    '}',
    '',
  ].join('\n');
}

/**
 * Bundles the client's entry points into `outDir`, with `operations` standing for the core's registry.
 * @example await bundle({ operations, outDir: 'dist' })
 */
export async function bundle({ operations, outDir }) {
  const virtual = '\0petstore-operations';
  const build = await rolldown({
    input: { index: join(root, 'src/index.ts'), trpc: join(root, 'src/trpc.ts'), webhooks: join(root, 'src/webhooks.ts') },
    platform: 'neutral',
    external: [/^@trpc\//, /^zod(\/|$)/, /^p-limit$/, /^standardwebhooks$/],
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    plugins: [
      {
        name: 'petstore-operations',
        resolveId: (source) => (source === '@petstore/core' ? virtual : undefined),
        load: (id) => (id === virtual ? routesModule(operations) : undefined),
      },
    ],
  });
  try {
    await build.write({ dir: outDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'shared-[hash].js' });
  } finally {
    await build.close();
  }
}

/**
 * dist/error-code.d.ts as tsc wrote it, with the service's codes (the import of the core's `ErrorCode`) listed one by
 * one from its table (`errorCodes`), so the published types name no server package.
 * @example await writeFile(file, errorCodeDeclarations(await readFile(file, 'utf8'), errorCodes))
 */
export function errorCodeDeclarations(declarations, errorCodes) {
  const imported = /^import type \{ ErrorCode as ServiceErrorCode \} from '@petstore\/core';$/m;
  if (!imported.test(declarations)) throw new Error('dist/error-code.d.ts no longer imports the core\'s ErrorCode as ServiceErrorCode');
  const codes = Object.keys(errorCodes).map((code) => `  | ${JSON.stringify(code)}`);
  return declarations.replace(imported, `/** The error codes of the service: its one table of them. */\ntype ServiceErrorCode =\n${codes.join('\n')};`);
}

async function main() {
  const dist = join(root, 'dist');
  await rm(dist, { recursive: true, force: true });
  const { operations, errorCodes } = await import('@petstore/core');
  await bundle({ operations, outDir: dist });
  const tsc = spawnSync(process.execPath, [join(root, '../../node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) throw new Error('tsc failed');
  await writeFile(join(dist, 'operation-methods.d.ts'), methodDeclarations(operations));
  const errorCodeFile = join(dist, 'error-code.d.ts');
  await writeFile(errorCodeFile, errorCodeDeclarations(await readFile(errorCodeFile, 'utf8'), errorCodes));
  let bytes = 0;
  for (const file of await readdir(dist, { recursive: true })) {
    const path = join(dist, file);
    if (!(await stat(path)).isFile()) continue;
    bytes += (await stat(path)).size;
    if (/@petstore\/(?!client\b)/.test(await readFile(path, 'utf8'))) throw new Error(`dist/${file} names a server package`);
  }
  console.log(`@petstore/client: dist is ${(bytes / 1024).toFixed(1)} kB`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
