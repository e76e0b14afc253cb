// The parts of docs/api.md that list the operations, made from the core's registry and the OpenAPI document built
// from it, so that a new operation needs no edit there. Each part sits between `<!-- operations: NAME -->` and
// `<!-- /operations: NAME -->`. `npm run build` runs this file after the packages' build:
//   node scripts/api-operations.mjs     # rewrites those parts of docs/api.md; with CI set, fails if they are stale
// apps/server/test/api-operations-doc.test.ts checks the page against the registry as the tests see it.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The page these parts live in. */
export const apiDoc = fileURLToPath(new URL('../docs/api.md', import.meta.url));

const code = (text) => `\`${text}\``;
const refName = (schema) => schema?.$ref?.split('/').pop();

/** How the page names a body or an answer: its schema's name, or the array of a named schema. */
function record(schema, document) {
  const name = refName(schema);
  const named = name && document.components.schemas[name];
  if (named?.type === 'array' && refName(named.items)) return `${code(name)}, an array of ${code(refName(named.items))}`;
  return name ? `a ${code(name)}` : 'JSON';
}

/** The operation as the document has it, by its method and path. */
const entryOf = (op, document) => document.paths[op.path][op.method.toLowerCase()];

function row(op, document) {
  const entry = entryOf(op, document);
  // A deprecated operation's summary may say so itself, as getPet's does.
  const deprecated = op.deprecation && !op.summary.includes('(deprecated)') && 'deprecated';
  const marks = [deprecated, op.stability].filter(Boolean).map((mark) => ` (${mark})`);
  const query = (entry.parameters ?? []).filter((p) => p.in === 'query').map((p) => `${p.name}=`);
  const body = entry.requestBody?.content['application/json']?.schema;
  const request = [
    code(`${op.method} ${op.path}${query.length ? `?${query.join('&')}` : ''}`),
    body ? ` with ${record(body, document)}, ${code('Content-Type: application/json')}` : '',
    op.writes ? `; optional ${code('Idempotency-Key')}` : '',
  ].join('');
  const success = entry.responses[op.successStatus].content?.['application/json']?.schema;
  const others = Object.keys(entry.responses)
    .filter((status) => /^\d+$/.test(status) && Number(status) !== op.successStatus)
    .map((status) => (status === '410' && op.deprecation ? '410 (after its removal date)' : status));
  const answer = op.successStatus === 204 ? 'no body' : record(success, document);
  return `| ${code(op.operationId)} "${op.summary}"${marks.join('')} | ${request} | ${op.successStatus}, ${answer} | ${others.join(', ')} |`;
}

/** tRPC's procedures in registry order, each operation's first and the page procedures after them. */
function procedures(operations) {
  const own = operations.map((op) => ({ name: `pets.${op.procedure}`, op, page: false }));
  const pages = operations.filter((op) => op.pageProcedure).map((op) => ({ name: `pets.${op.pageProcedure}`, op, page: true }));
  return [...own, ...pages];
}

const listed = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * The generated parts by name, from the registry's operations (in its order) and the document made from them.
 * @example operationsParts(Object.values(operations), createOpenApiDocument({ servers })).table
 */
export function operationsParts(operations, document) {
  const routes = [...new Set(operations.map((op) => code(`${op.method} /v1${op.path}`)))];
  const trpc = procedures(operations);
  return {
    routes: routes.join(', '),
    procedures: trpc.map(({ name }, i) => code(i === 0 ? `/trpc/${name}` : name)).join(', '),
    'procedure-kinds': listed(
      trpc.map(({ name, op, page }) => {
        const notes = [op.writes ? 'mutation' : 'query', op.deprecation && 'deprecated', op.stability, page && 'tRPC only'];
        return `${code(name)} (${notes.filter(Boolean).join(', ')})`;
      }),
    ),
    table: [
      '| operation | request | success | other answers |',
      '| --- | --- | --- | --- |',
      ...operations.map((op) => row(op, document)),
    ].join('\n'),
  };
}

const MARKED = /(<!-- operations: ([a-z-]+) -->)([\s\S]*?)(<!-- \/operations: \2 -->)/g;

/**
 * The page with each marked part replaced by the generated one. A block part (the table) keeps a line of its own
 * after and before its markers. Throws when the page marks a part that is not generated, or leaves one out.
 */
export function withOperations(page, parts) {
  const seen = new Set();
  const out = page.replace(MARKED, (_all, open, name, inner, close) => {
    if (!(name in parts)) throw new Error(`docs/api.md marks a part "${name}" that scripts/api-operations.mjs does not make`);
    seen.add(name);
    const block = inner.startsWith('\n');
    return `${open}${block ? `\n${parts[name]}\n` : parts[name]}${close}`;
  });
  const missing = Object.keys(parts).filter((name) => !seen.has(name));
  if (missing.length) throw new Error(`docs/api.md has no <!-- operations: ${missing.join(' -->, <!-- operations: ')} --> part`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The built packages (their dist): this runs in plain Node, after the packages' build.
  const [{ operations }, { createOpenApiDocument }] = await Promise.all([import('@petstore/core'), import('@petstore/rest')]);
  const document = createOpenApiDocument({ servers: { production: 'https://api.example.com/v1' } });
  const page = await readFile(apiDoc, 'utf8');
  const generated = withOperations(page, operationsParts(Object.values(operations), document));
  if (generated !== page && process.env.CI) {
    console.error("docs/api.md's operations are not the registry's: run `npm run build`, which writes them, and commit docs/api.md.");
    process.exit(1);
  }
  if (generated !== page) {
    await writeFile(apiDoc, generated);
    console.log('docs/api.md: its operations were written again from the registry (commit the change).');
  }
}
