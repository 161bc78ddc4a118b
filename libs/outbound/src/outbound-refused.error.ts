import type { RefusedCategory } from './address-ranges.js';

export type RefusalReason = RefusedCategory | 'metadata_host' | 'scheme' | 'redirect_limit' | 'invalid_url';

/**
 * A user-given URL that may not be called. The message names the host the user gave and
 * nothing it resolved to, and is the same whatever the reason, so an error shown to a user does
 * not map the internal network; `reason` and `address` are for logs and tests.
 */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';

  constructor(
    readonly host: string,
    readonly reason: RefusalReason,
    readonly address?: string,
  ) {
    super(
      reason === 'redirect_limit'
        ? `outbound request to "${host}" refused: too many redirects`
        : `outbound request to "${host}" refused: not an allowed destination`,
    );
    this.name = 'OutboundRefusedError';
  }
}

/** The refusal behind an error, looking through `cause` chains (fetch wraps connect errors). */
export function findOutboundRefusal(error: unknown): OutboundRefusedError | undefined {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    if (current instanceof OutboundRefusedError) return current;
    if (current instanceof AggregateError) {
      const inner = current.errors.map(findOutboundRefusal).find(Boolean);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
