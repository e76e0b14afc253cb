import { z } from 'zod';

const DECIMAL = /^-?[0-9]+$/;

/**
 * Turns query or path values (strings) into the input an operation's schema reads: parameters the schema declares
 * as integers are converted when they are spelled in decimal digits, anything else is passed on as sent for the
 * core to judge. Parameters the schema does not name are left out (unknown query parameters are ignored).
 * @example const read = httpInput(operations.listPets.input); read({ limit: '5', utm: 'x' }) // { limit: 5 }
 */
export function httpInput(schema: z.ZodType): (values: Record<string, unknown>) => Record<string, unknown> {
  // An empty registry instead of zod's global one: a schema with a meta id (a named component) would otherwise come
  // back as `{ $ref, $defs }`, with no `properties` at the top, and so would a field with an id of its own.
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', metadata: z.registry() }) as {
    properties?: Record<string, { type?: unknown }>;
  };
  const fields = Object.entries(json.properties ?? {}).map(([name, property]) => [name, property.type === 'integer'] as const);
  return (values) => {
    const input: Record<string, unknown> = {};
    for (const [name, integer] of fields) {
      const value = values[name];
      if (value === undefined) continue;
      input[name] = integer && typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
    }
    return input;
  };
}
