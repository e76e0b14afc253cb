// Regenerates schema.d.ts from the OpenAPI document of a running service:
//   node examples/rest-client/generate.mjs [http://127.0.0.1:3000/v1/openapi.json]
// It writes what `npx openapi-typescript <url> --default-non-nullable=false -o examples/rest-client/schema.d.ts`
// writes. The generated types leave out the document's `servers`, so the file does not depend on the service's
// PETSTORE_PUBLIC_URL, host or port.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** Where the generated types live, next to this script. */
export const schemaFile = fileURLToPath(new URL('./schema.d.ts', import.meta.url));

/**
 * The TypeScript types of an OpenAPI document. `defaultNonNullable: false` keeps an optional field that has a
 * default optional in request bodies (NewPet's `status`); openapi-typescript 7 would make it required.
 * @param {URL} source the document's address, e.g. `new URL('http://127.0.0.1:3000/v1/openapi.json')`
 * @returns {Promise<string>} the contents of schema.d.ts
 * @example await writeFile(schemaFile, await generateSchema(new URL(`${url}/v1/openapi.json`)))
 */
export async function generateSchema(source) {
  return COMMENT_HEADER + astToString(await openapiTS(source, { defaultNonNullable: false }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = new URL(process.argv[2] ?? 'http://127.0.0.1:3000/v1/openapi.json');
  await writeFile(schemaFile, await generateSchema(source));
  console.log(`Wrote ${schemaFile} from ${source}`);
}
