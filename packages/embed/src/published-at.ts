/** The API's version segment, which SPEC puts at the end of every base address. */
const VERSION_SEGMENT = '/v1';

/** `https://api.example.com/petstore/v1` for a configured address and the handler's base path: what to give instead. */
function suggestion(url: URL, basePath: string): string {
  return `${url.origin}${basePath}${VERSION_SEGMENT}`;
}

/**
 * Refuses, when the handler is made, a `publicUrl` or `stagingUrl` that links cannot be built from: one that is not an
 * absolute http(s) URL, one whose path does not end in `/v1` (SPEC: the base address ends in the version segment), or
 * one whose path leaves out the handler's `basePath` (links would name an address where the handler does not serve).
 * Each error names the option, the rule and the value to give.
 * @example checkPublishedAt({ publicUrl: 'https://api.example.com/petstore/v1' }, '/petstore')
 */
export function checkPublishedAt(options: { publicUrl?: string | undefined; stagingUrl?: string | undefined }, basePath: string): void {
  for (const name of ['publicUrl', 'stagingUrl'] as const) {
    const value = options[name];
    if (value === undefined || value === '') continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch (error) {
      throw new TypeError(
        `${name} ${JSON.stringify(value)} is not an absolute URL: give the address clients reach the API at, ending in ` +
          `${basePath}${VERSION_SEGMENT} (https://api.example.com${basePath}${VERSION_SEGMENT}).`,
        { cause: error },
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError(`${name} ${JSON.stringify(value)} is not an http(s) address: give one such as 'https://api.example.com${basePath}${VERSION_SEGMENT}'.`);
    }
    const path = url.pathname.replace(/\/+$/, '');
    if (!path.endsWith(VERSION_SEGMENT)) {
      throw new TypeError(
        `${name} ${JSON.stringify(value)} must end in the API's version segment ${VERSION_SEGMENT} (the base address ` +
          `clients call, as links and the OpenAPI servers name it): give ${name}: '${url.origin}${path}${VERSION_SEGMENT}'.`,
      );
    }
    if (basePath !== '' && !path.endsWith(`${basePath}${VERSION_SEGMENT}`)) {
      throw new TypeError(
        `${name} ${JSON.stringify(value)} leaves out basePath ${JSON.stringify(basePath)}: the handler serves under ` +
          `${basePath}${VERSION_SEGMENT}, and links (Location, Link) would name ${url.origin}${path}/…, where it does not. ` +
          `Give ${name}: '${suggestion(url, basePath)}' (the address's path ends in basePath + ${VERSION_SEGMENT}).`,
      );
    }
  }
}
