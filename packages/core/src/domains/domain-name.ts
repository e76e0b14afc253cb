const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain name as the service keeps it: lower case, no trailing dot, at least two labels of letters, digits and
 * hyphens; undefined when the input is not one (an address, a port, a wildcard, a URL).
 * @example normalizeDomainName('API.Example.com.') // 'api.example.com'
 */
export function normalizeDomainName(input: string): string | undefined {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (name.length > 253) return undefined;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return undefined;
  return name;
}
