import { readFileSync } from 'node:fs';
import { operations } from '@petstore/core';
import { createOpenApiDocument } from '@petstore/rest';
import { describe, expect, it } from 'vitest';
import { apiDoc, operationsParts, withOperations } from '../../../scripts/api-operations.mjs';

const page = readFileSync(apiDoc, 'utf8');
const parts = operationsParts(Object.values(operations), createOpenApiDocument({ servers: { production: 'https://api.example.com/v1' } }));

describe('docs/api.md', () => {
  it("lists the registry's operations as scripts/api-operations.mjs writes them", () => {
    expect(withOperations(page, parts), 'stale: `npm run build` writes these parts of docs/api.md').toBe(page);
    for (const op of Object.values(operations)) expect(parts.table).toContain(`| \`${op.operationId}\` "${op.summary}"`);
  });

  it('counts no operations by hand', () => {
    const counted = /\b(?:all|both|none of the|each of the)\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:operations|procedures|routes)\b/gi;
    expect(page.match(counted) ?? []).toEqual([]);
  });
});
