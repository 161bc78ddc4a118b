import type ipaddr from 'ipaddr.js';
import { embeddedIPv4, parseAddress, refusedCategory, type RefusedCategory } from './address-ranges.js';
import { parseAllowCidrs, type AllowedCidr } from './allow-cidrs.js';
import { OutboundRefusedError } from './outbound-refused.error.js';

/**
 * Names of cloud metadata services. They resolve to a metadata address anyway, but a resolver
 * that is not the cloud's own could answer anything, so they are refused by name as well.
 */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

export type AddressVerdict =
  { readonly allowed: true } | { readonly allowed: false; readonly category: RefusedCategory };

/**
 * Which destinations a user-given URL may reach: public unicast addresses, plus whatever the
 * allow-list (`FLOWMESH_OUTBOUND_ALLOW_CIDRS`) names. Everything else (loopback, RFC 1918, ULA,
 * link-local, CGNAT, unspecified, multicast, reserved and the metadata endpoints) is refused,
 * IPv4-mapped and NAT64/6to4 IPv6 judged by the IPv4 address they carry.
 */
export class OutboundPolicy {
  readonly allowed: readonly AllowedCidr[];

  constructor(allowCidrs: string | readonly string[] | readonly AllowedCidr[] = []) {
    this.allowed =
      typeof allowCidrs === 'string' || allowCidrs.every((entry) => typeof entry === 'string')
        ? parseAllowCidrs(allowCidrs)
        : allowCidrs;
  }

  /** The verdict on one IP address (as DNS returns it, or an IP literal from a URL). */
  checkAddress(address: string): AddressVerdict {
    const parsed = parseAddress(address);
    if (!parsed) return { allowed: false, category: 'reserved' };
    const category = refusedCategory(parsed);
    if (category === undefined || this.isAllowListed(parsed)) return { allowed: true };
    return { allowed: false, category };
  }

  /** Throws `OutboundRefusedError` for an address the policy refuses; `host` is named in the error. */
  assertAddress(host: string, address: string): void {
    const verdict = this.checkAddress(address);
    if (!verdict.allowed) throw new OutboundRefusedError(host, verdict.category, address);
  }

  /** Whether a host name is refused before any lookup (cloud metadata names). */
  isRefusedHostName(host: string): boolean {
    return METADATA_HOSTS.has(normalizeHostName(host));
  }

  private isAllowListed(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    if (this.allowed.length === 0) return false;
    const inner = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : undefined;
    return this.allowed.some(
      ({ range }) => covers(range, address) || (inner !== undefined && covers(range, inner)),
    );
  }
}

function covers(
  range: readonly [ipaddr.IPv4 | ipaddr.IPv6, number],
  address: ipaddr.IPv4 | ipaddr.IPv6,
): boolean {
  return range[0].kind() === address.kind() && address.match(range as [ipaddr.IPv4, number]);
}

/** Lower case, no trailing dot, no IPv6 brackets: how names compare. */
export function normalizeHostName(host: string): string {
  const lower = host.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}
