/**
 * `JSON.stringify`, remembered for frozen values (cached pages), so a page served many times is serialised once. Each
 * codec makes its own, so nothing is shared across handlers or stores.
 * @example const jsonText = createJsonText(); jsonText(outcome.data)
 */
export function createJsonText(): (value: unknown) => string {
  const texts = new WeakMap<object, string>();
  return (value) => {
    if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
    let text = texts.get(value);
    if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
    return text;
  };
}
