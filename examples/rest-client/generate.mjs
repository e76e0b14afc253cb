// Writes schema.d.ts, the types openapi-typescript makes of the service's OpenAPI document, built in-process from the
// core's operations (no service to start): `npm run build` runs it, so the file is never committed or stale.
//   node examples/rest-client/generate.mjs           # after `npm run build`: the document of this checkout
// It writes what `npx openapi-typescript <document> --default-non-nullable=false -o examples/rest-client/schema.d.ts`
// writes. The generated types leave out the document's `servers`, so the file does not depend on the addresses the
// document is made for.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** Where the generated types live, next to this script. */
export const schemaFile = fileURLToPath(new URL('./schema.d.ts', import.meta.url));

/**
 * The TypeScript types of an OpenAPI document. `defaultNonNullable: false` keeps an optional field that has a
 * default optional in request bodies (NewPet's `status`); openapi-typescript 7 would make it required.
 * @param {URL | import('openapi-typescript').OpenAPI3} source the document or its address: `new URL(`${url}/v1/openapi.json`)`
 * @returns {Promise<string>} the contents of schema.d.ts
 * @example await writeFile(schemaFile, await generateSchema(createOpenApiDocument({ servers })))
 */
export async function generateSchema(source) {
  return COMMENT_HEADER + astToString(await openapiTS(source, { defaultNonNullable: false }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The built package (its dist): this runs in plain Node, after the packages' build.
  const { createOpenApiDocument } = await import('@petstore/rest');
  const document = /** @type {import('openapi-typescript').OpenAPI3} */ (
    createOpenApiDocument({ servers: { production: 'https://api.example.com/v1' } })
  );
  await writeFile(schemaFile, await generateSchema(document));
}
