import type { ZodOpenApiComponentsObject } from 'zod-openapi';
import { errorSchema } from './error-responses.js';
import { headerComponents } from './headers.js';
import { namedBodies, type BodySchemas } from './request-body.js';

/**
 * The `components` written out: the Error schema, named bodies that are not a schema of their own, the shared
 * headers and the bearer scheme. The operations' schemas (`Pet`, `NewPet`, …) join them where zod-openapi meets a
 * schema with a meta id.
 * @example createDocument({ …, components: componentsOf(bodySchemas(definitions)) })
 */
export function componentsOf(bodies: BodySchemas): ZodOpenApiComponentsObject {
  return {
    schemas: { Error: errorSchema, ...namedBodies(bodies) },
    headers: { ...headerComponents },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' } },
  };
}
