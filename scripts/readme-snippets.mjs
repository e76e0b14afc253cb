// The README's snippets as a consumer would paste them. `extract README DIR` writes every fenced block that follows
// a `<!-- snippet: NAME -->` line to DIR/NAME.ts, verbatim. `run PROJECT` runs the compiled snippets of a scratch
// project (PROJECT/dist) as the README describes them: the in-process calls, then each mounting snippet as a server
// on a free port, checked with a request to its API and its docs, and the tRPC client against the node:http one.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

const [command, first, second] = process.argv.slice(2);

async function extract(readme, dir) {
  const text = await readFile(readme, 'utf8');
  const blocks = [...text.matchAll(/<!-- snippet: ([a-z-]+) -->\n```ts\n([\s\S]*?)\n```/g)];
  if (blocks.length === 0) throw new Error(`no snippets in ${readme}`);
  await mkdir(dir, { recursive: true });
  for (const [, name, code] of blocks) await writeFile(join(dir, `${name}.ts`), `${code}\n`);
  console.log(`readme-snippets: ${blocks.map(([, name]) => name).join(', ')}`);
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function start(project, name, env) {
  const child = spawn(process.execPath, [join(project, 'dist', `${name}.js`)], {
    cwd: project,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function waitFor(url, headers = {}) {
  for (let i = 0; i < 150; i++) {
    const status = await fetch(url, { headers }).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200`);
}

async function runToEnd(project, name, env) {
  const child = start(project, name, env);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${name} exited with ${code}`);
}

async function run(project) {
  const key = `readme-key-${randomBytes(8).toString('hex')}`;
  await runToEnd(project, 'in-process', { PETSTORE_KEY: key });
  const auth = { authorization: `Bearer ${key}` };
  for (const [name, api] of [
    ['mount-node', '/v1'],
    ['mount-express', '/petstore/v1'],
    ['mount-fastify', '/v1'],
  ]) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(project, name, { PORT: String(port), PETSTORE_KEY: key });
    try {
      await waitFor(`${base}${api}/pets`, auth);
      await waitFor(`${base}${api}/docs/`);
      if (name === 'mount-node') await runToEnd(project, 'trpc-client', { PETSTORE_URL: base, PETSTORE_KEY: key });
      console.log(`readme-snippets: ${name} serves ${api}/pets and ${api}/docs/`);
    } finally {
      server.kill();
    }
  }
}

if (command === 'extract') await extract(first, second);
else if (command === 'run') await run(first);
else throw new Error('usage: readme-snippets.mjs extract README DIR | run PROJECT');
