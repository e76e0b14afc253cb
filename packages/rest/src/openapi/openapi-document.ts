import { operations } from '@petstore/core';
import { createDocument } from 'zod-openapi';
import { componentsOf } from './components.js';
import type { CompleteDocumentOptions, OpenApiContact } from './document-types.js';
import type { Document } from './openapi-types.js';
import { pathsOf } from './paths.js';
import { bodySchemas } from './request-body.js';

const TAG_DESCRIPTIONS: Record<string, string> = {
  animals: 'The animals of the catalogue.',
  usage: "Where the caller stands: its plan's windows, its ban and what it used today.",
  store: 'Orders, which sell animals one at a time, and the inventory of the catalogue.',
  webhooks: 'Endpoints that receive the changes of the catalogue and of their owner\'s orders as signed events, and their deliveries.',
};

const DESCRIPTION =
  'HTTP/JSON API of a pet store: a catalogue of animals, and the orders that sell them. Every operation needs an API key sent as `Authorization: Bearer <API_KEY>`. ' +
  'Every response carries the rate-limit headers; a request over the limit gets 429 with `Retry-After`.';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The operator's contact as `info.contact`, its empty fields left out; nothing when none is configured. */
function contactOf(contact: OpenApiContact | undefined): { contact?: Record<string, string> } {
  const fields = Object.entries(contact ?? {}).filter(([, value]) => typeof value === 'string' && value !== '');
  return fields.length === 0 ? {} : { contact: Object.fromEntries(fields) as Record<string, string> };
}

/**
 * The document with zod-openapi's own types, for this package's code and tests: generated in one step from the
 * operations' definitions. Builds a new document on every call; nothing is cached or mutated.
 * @example openApiObject({ servers: { production: 'https://api.petstore.dev/v1' } }).paths?.['/pets']?.get
 */
export function openApiObject(options: CompleteDocumentOptions): Document {
  const definitions = options.operations ?? Object.values(operations);
  const production = trimSlash(options.servers.production);
  const tags = [...new Set(definitions.flatMap((op) => op.tags))];
  const bodies = bodySchemas(definitions);
  // A deep copy: zod-openapi places the objects it is given (the Error schema, header components) in the document,
  // and a caller may change its document without changing the next one.
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Pet Store',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
      ...contactOf(options.contact),
    },
    // Both servers are public: `x-internal: false` says so (OWASP API9, an inventory of what is exposed).
    servers: [
      { url: production, description: 'Production', 'x-internal': false },
      ...(options.servers.staging
        ? [{ url: trimSlash(options.servers.staging), description: 'Staging', 'x-internal': false }]
        : []),
      ...(options.servers.custom ?? []).map((url) => ({ url: trimSlash(url), description: 'Custom domain', 'x-internal': false })),
    ],
    tags: tags.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] && { description: TAG_DESCRIPTIONS[name] }) })),
    paths: pathsOf(definitions, production, bodies),
    components: componentsOf(bodies),
  });
  return structuredClone(document);
}
