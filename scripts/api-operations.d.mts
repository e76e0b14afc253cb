// Types of api-operations.mjs, for the test that checks docs/api.md against the registry.
import type { OperationDefinition } from '@petstore/core';
import type { OpenApiDocument } from '@petstore/rest';

/** docs/api.md. */
export declare const apiDoc: string;
/** The generated parts of docs/api.md by name, from the registry's operations and the document made from them. */
export declare function operationsParts(operations: readonly OperationDefinition[], document: OpenApiDocument): Record<string, string>;
/** The page with each `<!-- operations: NAME -->` part replaced; throws when a part is unknown or left out. */
export declare function withOperations(page: string, parts: Record<string, string>): string;
