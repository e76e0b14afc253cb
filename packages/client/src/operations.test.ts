import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { operations as registry } from '@petstore/core';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedServer } from './testing/scripted-server.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
type Built = typeof import('./index.js');
type Build = {
  ROUTE_FIELDS: string[];
  bundle(options: { operations: object; outDir: string }): Promise<void>;
  methodDeclarations(operations: object): string;
};
const loadBuild = () => import(pathToFileURL(fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))).href) as Promise<Build>;
const loadBuilt = (dir: string) => import(pathToFileURL(join(dir, 'index.js')).href) as Promise<Built>;

/** An input for an operation's path placeholders, each 1. */
const placeholders = (path: string) => Object.fromEntries([...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => [name!, 1]));
const expectedUrl = (path: string) => `/v1${path.replace(/\{[^}]+\}/g, '1')}`;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the published client follows the core’s operations', () => {
  it('has one method per operation of the registry, and the registry’s routes', async () => {
    const { createClient, operations } = await loadBuilt(dist);
    const { ROUTE_FIELDS } = await loadBuild();
    const petstore = createClient({ baseUrl: 'http://127.0.0.1:9/v1' });
    expect(Object.keys(petstore).sort()).toEqual([...Object.keys(registry), 'paginate', 'withETag'].sort());
    for (const op of Object.values(registry)) {
      const route = Object.fromEntries(ROUTE_FIELDS.flatMap((field) => (field in op ? [[field, op[field as keyof typeof op]]] : [])));
      expect(operations[op.operationId as keyof typeof operations]).toEqual(route);
    }
  });

  it('sends each operation to its method and path, writes with an Idempotency-Key', async () => {
    const server = await scriptedServer([{ status: 200, body: {} }]);
    close = server.close;
    const { createClient } = await loadBuilt(dist);
    const petstore = createClient({ baseUrl: server.base, onDeprecation: false }) as unknown as Record<string, (input: object) => Promise<unknown>>;
    for (const op of Object.values(registry)) {
      server.requests.length = 0;
      await petstore[op.operationId]!(placeholders(op.path));
      const [request] = server.requests;
      expect({ method: request!.method, url: request!.url.split('?')[0], key: request!.headers['idempotency-key'] !== undefined }).toEqual({
        method: op.method,
        url: expectedUrl(op.path),
        key: op.writes,
      });
    }
  });

  it('gets an operation added to the core with no edit to the client', { timeout: 60_000 }, async () => {
    const { bundle, methodDeclarations } = await loadBuild();
    const deletePet = {
      ...registry.getPet,
      operationId: 'deletePet',
      method: 'DELETE',
      path: '/pets/{petId}',
      successStatus: 200,
      writes: true,
      deprecation: undefined,
      stability: 'beta',
    };
    const withDelete = { ...registry, deletePet };
    const outDir = await mkdtemp(join(tmpdir(), 'petstore-client-'));
    try {
      await bundle({ operations: withDelete, outDir });
      const server = await scriptedServer([{ status: 200, body: { id: 3, name: 'Rex', categoryId: 1, status: 'sold' } }]);
      close = server.close;
      const { createClient } = await loadBuilt(outDir);
      const petstore = createClient({ baseUrl: server.base }) as unknown as Record<string, (input: object) => Promise<unknown>>;
      expect(await petstore.deletePet!({ petId: 3 })).toMatchObject({ id: 3 });
      expect(server.requests.map(({ method, url }) => `${method} ${url}`)).toEqual(['DELETE /v1/pets/3']);
      expect(server.requests[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/);
      const declarations = methodDeclarations(withDelete);
      expect(declarations).toContain('readonly deletePet: OperationMethod<"deletePet">;');
      expect(declarations).toMatch(/`DELETE \/pets\/\{petId\}` \(deletePet\)[^/]*@beta/);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});

describe('the published types', () => {
  const file = join(dist, '..', 'src', 'published-types.fixture.ts');
  const source = [
    "import { createClient } from '../dist/index.js';",
    "const petstore = createClient({ baseUrl: 'https://api.example.com/v1', apiKey: 'k' });",
    "export const pet = await petstore.createPet({ name: 'Rex', categoryId: 1 });",
    'export const id: number = pet.id;',
    "export const one = await petstore.getPet({ petId: id });",
    "export const page = await petstore.listPets({ status: 'available', limit: 20 });",
    "export const wrongType = await petstore.createPet({ name: 'Rex', categoryId: '1' });",
    "export const unknownField = await petstore.createPet({ name: 'Rex', categoryId: 1, id: 4 });",
    "export const missingField = await petstore.createPet({ name: 'Rex' });",
    "export const wrongStatus = await petstore.listPets({ status: 'lost' });",
    "export const wrongPage = petstore.paginate('createPet', { name: 'Rex', categoryId: 1 });",
    '',
  ].join('\n');

  let cached: ts.LanguageService | undefined;
  function languageService() {
    if (cached) return cached;
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    };
    cached = ts.createLanguageService({
      getScriptFileNames: () => [file],
      getScriptVersion: () => '1',
      getScriptSnapshot: (name) => {
        const text = name === file ? source : ts.sys.readFile(name);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => dist,
      getCompilationSettings: () => options,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: (name) => name === file || ts.sys.fileExists(name),
      readFile: (name) => (name === file ? source : ts.sys.readFile(name)),
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    });
    return cached;
  }

  it('type each call from the operation’s schemas and refuse wrong inputs', () => {
    const service = languageService();
    const lines = (diagnostics: readonly ts.Diagnostic[]) =>
      diagnostics.map((d) => source.slice(0, d.start).split('\n').length).sort((a, b) => a - b);
    expect(lines(service.getSemanticDiagnostics(file))).toEqual([7, 8, 9, 10, 11]);
    expect(lines(service.getSyntacticDiagnostics(file))).toEqual([]);
  });

  it('mark the deprecated operation @deprecated, with its sunset and successor', () => {
    const service = languageService();
    const deprecated = service.getSuggestionDiagnostics(file).filter((d) => d.reportsDeprecated);
    expect(deprecated.map((d) => source.slice(d.start, d.start! + d.length!))).toEqual(['getPet']);
    const position = source.indexOf('getPet');
    const info = service.getQuickInfoAtPosition(file, position);
    expect(ts.displayPartsToString(info?.tags?.find((tag) => tag.name === 'deprecated')?.text)).toBe(
      'Since 2026-11-21; from 2030-12-05 the service answers 410 `gone`. Use listPets (`GET /pets`) instead.',
    );
  });
});
