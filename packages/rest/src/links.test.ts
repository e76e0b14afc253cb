import { parse, stringify } from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPageUrl } from './links.js';

describe('links', () => {
  it('builds the next page from the query, replacing the cursor and re-encoding every value', () => {
    expect(nextPageUrl('http://h/v1', '/pets', parse('limit=5&status=sold&cursor=old'), 'new')).toBe(
      'http://h/v1/pets?limit=5&status=sold&cursor=new',
    );
    expect(nextPageUrl('http://h/v1', '/pets', parse('x=%3E%20a'), 'c')).toBe('http://h/v1/pets?x=%3E%20a&cursor=c');
  });

  it('keeps repeated and empty parameters and the order they came in, as querystring.stringify does', () => {
    const part = fc.oneof(fc.constantFrom('cursor', 'limit', 'a', '', '%20', '+', '&', '='), fc.string({ maxLength: 6 }));
    const raw = fc.array(fc.tuple(part, part), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
    fc.assert(
      fc.property(raw, fc.string({ maxLength: 8 }), (target, cursor) => {
        const query = parse(target);
        expect(nextPageUrl('http://h/v1', '/pets', query, cursor)).toBe(`http://h/v1/pets?${stringify({ ...query, cursor })}`);
      }),
      { numRuns: 500 },
    );
  });
});
