import { describe, expect, it } from 'vitest';
import { memoized } from './memoized.js';

describe('memoized', () => {
  it("answers the function's value, working each argument out once until it holds max of them", () => {
    const asked: string[] = [];
    const upper = memoized((text) => (asked.push(text), text.toUpperCase()), { max: 2, maxLength: 8 });
    expect([upper('a'), upper('b'), upper('a'), upper('b')]).toEqual(['A', 'B', 'A', 'B']);
    expect(asked).toEqual(['a', 'b']);
    // A third argument: everything is forgotten at once, so memory stays bounded whatever the arguments.
    expect(upper('c')).toBe('C');
    expect(upper('a')).toBe('A');
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
  });

  it('keeps no argument longer than maxLength: a long one is worked out each time', () => {
    const asked: string[] = [];
    const upper = memoized((text) => (asked.push(text), text.toUpperCase()), { max: 2, maxLength: 8 });
    const long = 'x'.repeat(9);
    expect([upper(long), upper(long)]).toEqual([long.toUpperCase(), long.toUpperCase()]);
    expect(asked).toEqual([long, long]);
  });
});
