/**
 * `fn` with its answers kept for the arguments seen lately: at most `max` of them, all forgotten at once when full (an
 * attacker's stream of new arguments costs a clear now and then, never unbounded memory). For pure functions of a
 * string that the request path calls over and over with the same few arguments: a key's token, a client's address.
 * @example const digest = memoized(tokenDigest, 10_000); digest(token) // hashed once per token
 */
export function memoized(fn: (argument: string) => string, max: number): (argument: string) => string {
  const answers = new Map<string, string>();
  return (argument) => {
    let answer = answers.get(argument);
    if (answer === undefined) {
      if (answers.size >= max) answers.clear();
      answer = fn(argument);
      answers.set(argument, answer);
    }
    return answer;
  };
}
