/** What a request path resolves to: an endpoint with its path parameters, or the methods the path allows. */
export type RouteMatch<T> =
  | { readonly endpoint: T; readonly params: Record<string, string> }
  | { readonly endpoint: undefined; readonly allow: string; readonly path: string };

/**
 * Finds the endpoint of a method and a path relative to the base path; HEAD falls back to GET.
 * @example router.match('GET', '/pets/7') // { endpoint, params: { petId: '7' } }
 */
export interface Router<T> {
  match(method: string, path: string): RouteMatch<T> | undefined;
}

/** One route: a method, a path with `{param}` placeholders, and what serves it. */
export interface RouteDefinition<T> {
  method: string;
  path: string;
  endpoint: T;
}

interface PathEntry<T> {
  readonly methods: Map<string, T>;
  readonly notAllowed: { readonly endpoint: undefined; readonly allow: string; readonly path: string };
  readonly pattern: RegExp | undefined;
  readonly paramNames: readonly string[];
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function compile<T>(path: string, methods: Map<string, T>): PathEntry<T> {
  const names = Array.from(path.matchAll(PLACEHOLDER), (m) => m[1]!);
  const allowed = new Set(methods.keys());
  if (allowed.has('GET')) allowed.add('HEAD');
  const allow = [...allowed].sort().join(', ');
  let pattern: RegExp | undefined;
  if (names.length > 0) {
    const source = path
      .split(PLACEHOLDER)
      .map((part, i) => (i % 2 === 1 ? '([^/]+)' : escapeRegExp(part)))
      .join('');
    pattern = new RegExp(`^${source}$`);
  }
  return { methods, notAllowed: Object.freeze({ endpoint: undefined, allow, path }), pattern, paramNames: names };
}

/**
 * Compiles routes once: static paths are looked up in a map, templated ones matched by a precompiled pattern.
 * @example const router = createRouter([{ method: 'GET', path: '/pets/{petId}', endpoint: getPet }])
 */
export function createRouter<T>(routes: readonly RouteDefinition<T>[]): Router<T> {
  const byPath = new Map<string, Map<string, T>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, T>();
    if (methods.has(route.method)) throw new Error(`Duplicate route ${route.method} ${route.path}`);
    methods.set(route.method, route.endpoint);
    byPath.set(route.path, methods);
  }
  const fixed = new Map<string, PathEntry<T>>();
  const templated: PathEntry<T>[] = [];
  for (const [path, methods] of byPath) {
    const entry = compile(path, methods);
    if (entry.pattern) templated.push(entry);
    else fixed.set(path, entry);
  }

  function resolve(entry: PathEntry<T>, method: string, params: Record<string, string>): RouteMatch<T> {
    const endpoint = entry.methods.get(method) ?? (method === 'HEAD' ? entry.methods.get('GET') : undefined);
    return endpoint === undefined ? entry.notAllowed : { endpoint, params };
  }

  return {
    match(method, path) {
      const entry = fixed.get(path);
      if (entry) return resolve(entry, method, NO_PARAMS);
      for (const candidate of templated) {
        const found = candidate.pattern!.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        for (let i = 0; i < candidate.paramNames.length; i++) {
          params[candidate.paramNames[i]!] = decodeSegment(found[i + 1]!);
        }
        return resolve(candidate, method, params);
      }
      return undefined;
    },
  };
}
