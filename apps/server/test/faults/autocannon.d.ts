// The part of autocannon (a root devDependency, shipped without types) the overload test uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  type Instance = EventEmitter & PromiseLike<Result>;

  function autocannon(options: Options): Instance;
  export default autocannon;
}
