import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { createGuardedLookup, type ResolveAll } from './guarded-lookup.js';
import { normalizeHostName, type OutboundPolicy } from './outbound-policy.js';
import { OutboundRefusedError } from './outbound-refused.error.js';

export interface OutboundDispatcherOptions extends Omit<Agent.Options, 'connect'> {
  /** Socket options for every connection (timeout, keepAlive, TLS settings). */
  readonly connect?: buildConnector.BuildOptions;
  /** Replaces DNS resolution (tests). */
  readonly resolveAll?: ResolveAll;
}

/**
 * A connector that checks every connection it opens: an IP literal directly (net skips the
 * lookup for those), a name through the guarded lookup. Redirects, retries and pooled reuse all
 * pass through here, so nothing reaches a socket unchecked.
 */
export function createGuardedConnector(
  policy: OutboundPolicy,
  options: Pick<OutboundDispatcherOptions, 'connect' | 'resolveAll'> = {},
): buildConnector.connector {
  const connect = buildConnector({
    ...options.connect,
    lookup: createGuardedLookup(policy, options.resolveAll),
  });
  return (target, callback) => {
    const host = normalizeHostName(target.hostname);
    if (isIP(host) !== 0) {
      const verdict = policy.checkAddress(host);
      if (!verdict.allowed) {
        callback(new OutboundRefusedError(target.hostname, verdict.category, host), null);
        return;
      }
    }
    connect(target, callback);
  };
}

/**
 * An undici dispatcher for user-given URLs: pass it as `dispatcher` to undici's `request` or
 * `fetch`. Keep one per process (it pools connections per origin).
 */
export function createOutboundDispatcher(
  policy: OutboundPolicy,
  options: OutboundDispatcherOptions = {},
): Agent {
  const { connect, resolveAll, ...agentOptions } = options;
  return new Agent({
    ...agentOptions,
    connect: createGuardedConnector(policy, {
      ...(connect ? { connect } : {}),
      ...(resolveAll ? { resolveAll } : {}),
    }),
  });
}
