/**
 * `fn` with its answers kept for the arguments seen lately: at most `max` of them, all forgotten at once when full,
 * and never an argument longer than `maxLength` (worked out each time instead), so that a stream of new or long
 * arguments from an attacker costs a clear now and then, never unbounded memory. For pure functions of a string
 * that the request path calls over and over with the same few short arguments: a key's token, a client's address.
 * @example const digest = memoized(tokenDigest, { max: 10_000, maxLength: 255 }); digest(token) // hashed once per token
 */
export function memoized(fn: (argument: string) => string, limits: { max: number; maxLength: number }): (argument: string) => string {
  const { max, maxLength } = limits;
  const answers = new Map<string, string>();
  return (argument) => {
    if (argument.length > maxLength) return fn(argument);
    let answer = answers.get(argument);
    if (answer === undefined) {
      if (answers.size >= max) answers.clear();
      answer = fn(argument);
      answers.set(argument, answer);
    }
    return answer;
  };
}
