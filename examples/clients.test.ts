import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../apps/server/src/config.js';
import { startServer, type RunningServer } from '../apps/server/src/server.js';
import { createPet, createPetStoreClient, getPet, listAllPets, petPages, type Pet } from './rest-client/client.js';
import { generateSchema, schemaFile } from './rest-client/generate.mjs';
import { createPets, createPetStoreTrpcClient, findPet, isPetStoreError } from './trpc-client/client.js';

const API_KEY = 'examples-test-key-0123456789';
const root = fileURLToPath(new URL('..', import.meta.url));
const examples = fileURLToPath(new URL('.', import.meta.url));

/** Runs `tsc` from the repository root and collects what it prints. */
function tsc(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], { cwd: root });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', (error) => resolve({ code: null, output: String(error) }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

/**
 * Type-checks in-memory files placed in examples/ with examples/tsconfig.json, checking only those files (tsc would
 * check every source file they import, which takes far longer), and lists their errors as `line:TScode`.
 */
function typeErrors(files: Record<string, string>): Record<string, string[]> {
  const { config } = ts.readConfigFile(join(examples, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, examples);
  const inMemory = new Map(Object.entries(files).map(([name, text]) => [join(examples, name), text]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile: read } = host;
  host.getSourceFile = (fileName, language, ...rest) => {
    const text = inMemory.get(fileName);
    if (text === undefined) return getSourceFile.call(host, fileName, language, ...rest);
    return ts.createSourceFile(fileName, text, language);
  };
  host.fileExists = (fileName) => inMemory.has(fileName) || fileExists.call(host, fileName);
  host.readFile = (fileName) => inMemory.get(fileName) ?? read.call(host, fileName);
  const program = ts.createProgram({ rootNames: [...inMemory.keys()], options, host });
  return Object.fromEntries(
    Object.keys(files).map((name) => {
      const file = program.getSourceFile(join(examples, name))!;
      const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
      const lineOf = (start = 0) => file.getLineAndCharacterOfPosition(start).line + 1;
      return [name, diagnostics.map((d) => `${lineOf(d.start)}:TS${d.code}`)];
    }),
  );
}

describe('the client examples', () => {
  let typeCheck: ReturnType<typeof tsc>;

  beforeAll(() => {
    typeCheck = tsc(['-p', 'examples/tsconfig.json']); // the slowest step: it runs while the other tests do
  });

  afterAll(async () => {
    await typeCheck;
  });

  // A type check of its own, synchronous: several seconds of CPU, more on a loaded machine.
  it('refuse every call compile-errors.ts marks once its @ts-expect-error is removed', { timeout: 120_000 }, async () => {
    const marked = await readFile(join(examples, 'compile-errors.ts'), 'utf8');
    const lines = marked.split('\n');
    const expected = lines.flatMap((line, index) => (/^\s*\/\/ @ts-expect-error /.test(line) ? [index + 2] : []));
    const unmarked = lines.map((line) => line.replace(/\/\/ @ts-expect-error .*/, '//')).join('\n');
    const fixed = marked.replace("categoryId: '1' } });", 'categoryId: 1 } });');
    expect(expected).toHaveLength(8);
    expect(fixed).not.toBe(marked);

    const errors = typeErrors({ 'compile-errors.unmarked.ts': unmarked, 'compile-errors.fixed.ts': fixed });
    const failing = new Set(errors['compile-errors.unmarked.ts']!.map((error) => Number(error.split(':')[0])));
    expect([...failing].sort((a, b) => a - b)).toEqual(expected);
    // A marked call that compiles fails the type check: TS2578, unused '@ts-expect-error' directive.
    expect(errors['compile-errors.fixed.ts']).toEqual([`${expected[0]! - 1}:TS2578`]);
  });

  describe('against the real service', () => {
    let running: RunningServer;

    beforeAll(async () => {
      running = await startServer(
        loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${API_KEY}:pro` }),
      );
    });

    afterAll(async () => {
      await running?.close();
    });

    it('are typed by the schema.d.ts the build generates, what openapi-typescript makes of the live /v1/openapi.json', async () => {
      const generated = await generateSchema(new URL(`${running.url}/v1/openapi.json`));
      const host = new URL(running.url).host;
      expect(generated, 'the types leave out the servers, so they do not depend on the address').not.toContain(host);
      const built = await readFile(schemaFile, 'utf8').catch(() => 'no schema.d.ts');
      expect(generated, 'rest-client/schema.d.ts is missing or stale: `npm run build` generates it').toBe(built);
    });

    it('create, page through, get and fail with a typed Error body over REST', async () => {
      const client = createPetStoreClient(`${running.url}/v1`, API_KEY);
      const rexBody = { name: 'Rex', categoryId: 1, status: 'sold' } as const;
      const { data: rex, response } = await client.POST('/pets', { body: rexBody });
      expect(response.status).toBe(201);
      const created: Pet[] = [rex!];
      for (const name of ['Tom', 'Kit', 'Bo', 'Ada']) {
        created.push(await createPet(client, { name, categoryId: 2, status: 'sold' }));
      }

      const pages: Pet[][] = [];
      for await (const page of petPages(client, { status: 'sold', limit: 2 })) pages.push(page);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(created);
      expect(await listAllPets(client, 'sold')).toEqual(created);
      expect(await listAllPets(client, 'pending')).toEqual([]);

      expect(await getPet(client, created[1]!.id)).toEqual(created[1]);
      expect(await getPet(client, 999_999)).toBeUndefined();

      await expect(createPet(client, { name: '', categoryId: 1 })).rejects.toMatchObject({
        name: 'PetStoreError',
        body: { code: 'invalid_request', status: 400, details: [{ path: 'name' }] },
      });
      const badKey = createPetStoreClient(`${running.url}/v1`, 'not-a-valid-key-0000');
      await expect(listAllPets(badKey)).rejects.toMatchObject({ body: { code: 'invalid_api_key', status: 401 } });
    });

    it('create in one batch, list, get and read error.data.error over tRPC', async () => {
      const petstore = createPetStoreTrpcClient(`${running.url}/trpc`, API_KEY);
      const created = await createPets(petstore, [
        { name: 'Rex', categoryId: 1, status: 'pending' },
        { name: 'Tom', categoryId: 2, status: 'pending' },
      ]);
      expect(created).toEqual([
        { id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'pending' },
        { id: expect.any(Number), name: 'Tom', categoryId: 2, status: 'pending' },
      ]);
      expect(await petstore.pets.list.query({ status: 'pending' })).toEqual(created);
      expect(await findPet(petstore, created[0]!.id)).toEqual(created[0]);
      expect(await findPet(petstore, 999_999)).toBeUndefined();

      const failure = await petstore.pets.create.mutate({ name: '', categoryId: 1 }).catch((error: unknown) => error);
      expect(isPetStoreError(failure) && failure.data?.error).toMatchObject({ code: 'invalid_request', status: 400 });
      const badKey = createPetStoreTrpcClient(`${running.url}/trpc`, 'not-a-valid-key-0000');
      const refused = await badKey.pets.list.query({}).catch((error: unknown) => error);
      expect(isPetStoreError(refused) && refused.data?.error).toEqual({
        code: 'invalid_api_key',
        message: 'The API key is unknown, revoked or malformed.',
        status: 401,
      });
    });
  });

  it('type-check with tsc -p examples/tsconfig.json', async () => {
    const { code, output } = await typeCheck;
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});
