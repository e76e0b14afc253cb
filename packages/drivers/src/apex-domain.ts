import { loadOptional } from '@petstore/core';

/**
 * Whether a name is an apex (registrable) domain, which may hold no CNAME, by the Public Suffix List (`tldts`, loaded
 * only when a domain is checked, so hosts without custom domains neither install nor load it).
 * @example await isApexDomain('example.co.uk') // true; await isApexDomain('api.example.co.uk') // false
 */
export async function isApexDomain(name: string): Promise<boolean> {
  const { getDomain } = await loadOptional('tldts', () => import('tldts'), 'Verifying custom domains');
  return getDomain(name, { allowPrivateDomains: true }) === name;
}
