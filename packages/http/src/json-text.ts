const texts = new WeakMap<object, string>();

/**
 * `JSON.stringify`, remembered for frozen values (cached pages), so a page served many times is serialised once.
 * @example res.end(jsonText(outcome.data))
 */
export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}
