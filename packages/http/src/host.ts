const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * A request host (`Host`, `X-Forwarded-Host`) in canonical form: lower case, without a trailing dot; undefined when
 * it is missing or not a well-formed host and port, so it can never inject into a link.
 * @example wellFormedHost('API.Example.com:8443') // 'api.example.com:8443'
 */
export function wellFormedHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 260 || !HOST.test(value)) return undefined;
  return value.toLowerCase().replace(/\.(?=:|$)/, '');
}

/**
 * The name of a host, without its port.
 * @example hostName('api.example.com:8443') // 'api.example.com'
 */
export function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:[0-9]+$/, '');
}
