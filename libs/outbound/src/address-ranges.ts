import ipaddr from 'ipaddr.js';

/** Why an address is not a destination for a user-given URL. */
export type RefusedCategory =
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'unique_local'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

type Range = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];

function ranges(...cidrs: string[]): Range[] {
  return cidrs.map((cidr) => ipaddr.parseCIDR(cidr));
}

/**
 * Checked in order, first match wins, so the cloud metadata endpoints are named as such rather
 * than as the link-local or private range they sit in.
 */
const REFUSED_V4: ReadonlyArray<readonly [RefusedCategory, Range[]]> = [
  [
    'metadata',
    // AWS/GCP/Azure IMDS, AWS ECS task metadata, Alibaba Cloud, Oracle Cloud.
    ranges('169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '192.0.0.192/32'),
  ],
  ['unspecified', ranges('0.0.0.0/8')],
  ['loopback', ranges('127.0.0.0/8')],
  ['private', ranges('10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16')],
  ['carrier_grade_nat', ranges('100.64.0.0/10')],
  ['link_local', ranges('169.254.0.0/16')],
  ['multicast', ranges('224.0.0.0/4')],
  [
    'reserved',
    // IETF protocol assignments, documentation nets, benchmarking, 6to4 relay anycast, class E
    // (255.255.255.255 included).
    ranges(
      '192.0.0.0/24',
      '192.0.2.0/24',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '198.18.0.0/15',
      '192.88.99.0/24',
      '240.0.0.0/4',
    ),
  ],
];

const REFUSED_V6: ReadonlyArray<readonly [RefusedCategory, Range[]]> = [
  ['metadata', ranges('fd00:ec2::254/128')],
  ['unspecified', ranges('::/128')],
  ['loopback', ranges('::1/128')],
  ['unique_local', ranges('fc00::/7')],
  ['link_local', ranges('fe80::/10')],
  // Deprecated site-local, and NAT64 prefixes meant for one site (RFC 8215).
  ['private', ranges('fec0::/10', '64:ff9b:1::/48')],
  ['multicast', ranges('ff00::/8')],
  [
    'reserved',
    // IPv4-compatible (deprecated), discard-only, Teredo, documentation.
    ranges('::/96', '100::/64', '2001::/32', '2001:db8::/32'),
  ],
];

/** Prefixes whose addresses carry an IPv4 address, which is what gets checked. */
const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
/** Everything routable on the IPv6 internet lies in 2000::/3 today. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function matchesAny(address: ipaddr.IPv4 | ipaddr.IPv6, list: readonly Range[]): boolean {
  return list.some(
    (range) => range[0].kind() === address.kind() && address.match(range as [ipaddr.IPv4, number]),
  );
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if it carries one. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (address.match(IPV4_MAPPED) || address.match(NAT64_WELL_KNOWN)) {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (address.match(SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}

/** The category an address is refused under, or undefined for a public unicast address. */
export function refusedCategory(address: ipaddr.IPv4 | ipaddr.IPv6): RefusedCategory | undefined {
  if (address.kind() === 'ipv4') return REFUSED_V4.find(([, list]) => matchesAny(address, list))?.[0];
  const v6 = address as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner) return refusedCategory(inner);
  const found = REFUSED_V6.find(([, list]) => matchesAny(v6, list))?.[0];
  if (found) return found;
  return v6.match(GLOBAL_UNICAST_V6) ? undefined : 'reserved';
}

/** Parses an address as DNS or a URL gives it: `[::1]` brackets and `%eth0` zones accepted. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const unzoned = bare.includes('%') ? bare.slice(0, bare.indexOf('%')) : bare;
  if (ipaddr.IPv4.isValidFourPartDecimal(unzoned)) return ipaddr.IPv4.parse(unzoned);
  if (ipaddr.IPv6.isValid(unzoned)) return ipaddr.IPv6.parse(unzoned);
  return undefined;
}
