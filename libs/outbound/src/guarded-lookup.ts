import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { OutboundPolicy } from './outbound-policy.js';
import { OutboundRefusedError } from './outbound-refused.error.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** `dns.lookup`'s shape, as `net.connect({ lookup })` calls it. */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** Resolves every address of a name (`dns.lookup` with `all: true`); replaceable in tests. */
export type ResolveAll = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A lookup for `net.connect` that resolves the name, checks every address, and hands the socket
 * only addresses it checked: the connection goes to what was judged, so a DNS answer that
 * changes between check and connect (rebinding) changes nothing. A name with any refused address
 * is refused whole; a mix of public and internal answers is what a rebinding attempt looks like.
 */
export function createGuardedLookup(
  policy: OutboundPolicy,
  resolveAll: ResolveAll = dnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    if (policy.isRefusedHostName(hostname)) {
      callback(new OutboundRefusedError(hostname, 'metadata_host'), '');
      return;
    }
    resolveAll(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      for (const { address } of addresses) {
        const verdict = policy.checkAddress(address);
        if (!verdict.allowed)
          return callback(new OutboundRefusedError(hostname, verdict.category, address), '');
      }
      const first = addresses[0];
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    });
  };
}
