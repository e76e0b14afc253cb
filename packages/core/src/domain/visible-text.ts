/*
 * The rule of a name a person gives (an animal's name, a key's label): text that shows as written, never text that
 * drives a terminal or reorders what is around it. No zod here: the key tools load it before anything heavy.
 */

/**
 * Unicode controls (Cc, U+0085 included), the line and paragraph separators (Zl, Zp) and the format characters (Cf:
 * bidirectional controls such as U+202E, U+FEFF, U+200B): each can hide, reorder or break what a client displays. But
 * for the three that written languages and emoji need: U+200C ZERO WIDTH NON-JOINER (Persian, Hindi), U+200D ZERO
 * WIDTH JOINER ("🐈‍⬛") and the tag characters U+E0020-U+E007F (subdivision flags).
 */
const HIDING = /[\p{Cc}\p{Zl}\p{Zp}]|(?!\u200C|\u200D|[\u{E0020}-\u{E007F}])\p{Cf}/u;
/** A UTF-16 surrogate that is not half of a pair: with the `u` flag, pairs are one code point and never match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** A character that shows: not white space, not of category Other (C), not default-ignorable (U+3164 HANGUL FILLER). */
const VISIBLE = /[^\p{White_Space}\p{C}\p{Default_Ignorable_Code_Point}]/u;
/** Every character {@link shownText} escapes: the hiding ones and lone surrogates. */
const ESCAPED = new RegExp(`${HIDING.source}|${LONE_SURROGATE.source}`, 'gu');

/**
 * What is wrong with `value` as a name of at most `maxLength` characters (code points), or undefined when nothing is.
 * @example textProblem('Rex\u001b]0;pwned\u0007', 255) // 'must not contain control or format characters …'
 */
export function textProblem(value: string, maxLength: number): string | undefined {
  const length = [...value].length;
  if (length < 1 || length > maxLength) return `must be 1 to ${maxLength} characters long`;
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (no lone surrogates)';
  if (HIDING.test(value)) {
    return 'must not contain control or format characters (Unicode Cc, Cf, Zl, Zp) but U+200C, U+200D and tag characters';
  }
  if (!VISIBLE.test(value)) return 'must contain a visible character';
  return undefined;
}

/**
 * `text` as a terminal may show it: every character the rule refuses (ESC, BEL, CR, LF, U+202E, a lone surrogate, …)
 * written as `\u{1b}`, the rest as it is. For text stored before the rule, or by another writer.
 * @example shownText('ops\u001b]0;pwned\u0007') // 'ops\\u{1b}]0;pwned\\u{7}'
 */
export function shownText(text: string): string {
  return text.replace(ESCAPED, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

/**
 * JSON text with every character the rule refuses written as a `\u` escape of four hex digits: the same value, but JSON.stringify
 * leaves DEL, the C1 controls (U+009B opens a terminal command), U+2028 and U+202E as they are.
 * @example process.stdout.write(shownJson(JSON.stringify(records, null, 2)))
 */
export function shownJson(json: string): string {
  // JSON.stringify escapes C0 controls in strings itself: any left (its indentation's line ends) are the layout's.
  return json.replace(ESCAPED, (char) =>
    char < '\u0020'
      ? char
      : char
          .split('')
          .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
          .join(''),
  );
}
