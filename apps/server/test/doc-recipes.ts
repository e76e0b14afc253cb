import { readFileSync } from 'node:fs';

/** The markdown files whose recipes the tests run: the README and every page of docs/. */
export const recipeDocs = ['README.md', 'docs/deploying.md', 'docs/api.md', 'docs/decisions.md'] as const;

/** The recipes the tests read, by the name their marker gives (`<!-- recipe: NAME -->` above the fenced block). */
export const recipeNames = [
  'haproxy.cfg',
  'petstore-503.http',
  'pgbouncer.ini',
  'Caddyfile',
  'Caddyfile.fleet',
  'nginx.conf',
] as const;
export type RecipeName = (typeof recipeNames)[number];

const root = new URL('../../../', import.meta.url);

/**
 * Every `<!-- recipe: NAME -->` block of a markdown file: the text of the fenced block right below the marker.
 * @example recipesIn('docs/deploying.md').get('haproxy.cfg')
 */
export function recipesIn(file: string): Map<string, string> {
  const text = readFileSync(new URL(file, root), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, name, body] of text.matchAll(/^<!-- recipe: (\S+) -->\n```[a-z]*\n([\s\S]*?)^```$/gm)) blocks.set(name!, body!);
  return blocks;
}

/**
 * A recipe as the docs print it, with only the given literals (addresses, ports, file paths) replaced; each must
 * occur in it, so a test never silently runs something the docs no longer say.
 * @example recipe('haproxy.cfg', { '10.0.0.11:3000': '127.0.0.1:41234' })
 */
export function recipe(name: RecipeName, substitutions: Readonly<Record<string, string>> = {}): string {
  const found = recipeDocs.map((file) => recipesIn(file).get(name)).filter((text) => text !== undefined);
  if (found.length !== 1) throw new Error(`the docs hold ${found.length} recipes named ${name}, not 1`);
  let text = found[0]!;
  for (const [literal, replacement] of Object.entries(substitutions)) {
    if (!text.includes(literal)) throw new Error(`recipe ${name} no longer contains ${JSON.stringify(literal)}`);
    text = text.split(literal).join(replacement);
  }
  return text;
}
