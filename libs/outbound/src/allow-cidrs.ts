import ipaddr from 'ipaddr.js';

/** One entry of `FLOWMESH_OUTBOUND_ALLOW_CIDRS`, parsed. */
export interface AllowedCidr {
  /** As written, normalized: `127.0.0.0/8`, `fd00::/8`. */
  readonly text: string;
  readonly range: readonly [ipaddr.IPv4 | ipaddr.IPv6, number];
}

export class AllowCidrsError extends Error {
  constructor(readonly invalid: readonly string[]) {
    super(`not CIDR ranges or addresses: ${invalid.join(', ')}`);
    this.name = 'AllowCidrsError';
  }
}

/**
 * Parses the allow-list setting: comma-separated CIDR ranges (`10.0.0.0/8, fd00::/8`), a bare
 * address meaning that one address. Empty or absent allows nothing. Every bad entry is named.
 */
export function parseAllowCidrs(setting: string | readonly string[] | undefined): AllowedCidr[] {
  const entries = (typeof setting === 'string' ? setting.split(',') : (setting ?? []))
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid: string[] = [];
  const parsed: AllowedCidr[] = [];
  for (const entry of entries) {
    const cidr = entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`;
    if (!ipaddr.isValidCIDR(cidr)) {
      invalid.push(entry);
      continue;
    }
    const range = ipaddr.parseCIDR(cidr);
    parsed.push({ text: `${range[0].toString()}/${range[1]}`, range });
  }
  if (invalid.length > 0) throw new AllowCidrsError(invalid);
  return parsed;
}
