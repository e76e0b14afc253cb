import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { nextPageUrl } from './links.js';

describe('links', () => {
  it('builds the next page from the query, replacing the cursor and re-encoding every value', () => {
    expect(nextPageUrl('http://h/v1', '/pets', parse('limit=5&status=sold&cursor=old'), 'new')).toBe(
      'http://h/v1/pets?limit=5&status=sold&cursor=new',
    );
    expect(nextPageUrl('http://h/v1', '/pets', parse('x=%3E%20a'), 'c')).toBe('http://h/v1/pets?x=%3E%20a&cursor=c');
  });
});
