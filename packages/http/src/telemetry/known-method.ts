/** The methods of RFC 9110 and PATCH (RFC 5789), and QUERY: the ones OpenTelemetry names as they are. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/**
 * A request's method as a span attribute or a metric label may carry it: a known method as it is, any other as
 * `_OTHER` (OpenTelemetry's value for it), so that a client inventing methods cannot add series or span names.
 * @example knownMethod('GET') // 'GET'; knownMethod('FOO') // '_OTHER'
 */
export function knownMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : '_OTHER';
}
