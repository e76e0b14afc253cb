import { textProblem } from '../domain/visible-text.js';

/** The longest label a key takes, in characters (code points). */
export const MAX_LABEL_LENGTH = 100;

/**
 * What is wrong with `label` as a key's label, or undefined when nothing is: the rule of an animal's name (text that
 * shows as written: no ESC, BEL, CR, LF, bidirectional control, …), at most {@link MAX_LABEL_LENGTH} characters.
 * @example labelProblem('billing\u0007') // 'must not contain control or format characters …'
 */
export function labelProblem(label: string): string | undefined {
  return textProblem(label, MAX_LABEL_LENGTH);
}
