/** What a DNS check found: the domain points at the platform, or why not (in words for the operator). */
export type DnsVerdict = { ok: true; found: string } | { ok: false; reason: string };

/** Checks one domain name against the platform host (`createDnsCheck` in `@petstore/drivers` asks DNS). */
export type DnsCheck = (name: string) => Promise<DnsVerdict>;
