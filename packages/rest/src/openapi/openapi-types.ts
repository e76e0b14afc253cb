import type { oas31 } from 'zod-openapi';

/** Parts of an OpenAPI 3.1 document, named from zod-openapi's document types (`const header: Header = …`). */
export type Document = oas31.OpenAPIObject;
export type Schema = oas31.SchemaObject;
export type Header = oas31.HeaderObject;
export type Parameter = oas31.ParameterObject;
