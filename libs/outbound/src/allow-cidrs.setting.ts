import { z } from 'zod';
import { AllowCidrsError, parseAllowCidrs, type AllowedCidr } from './allow-cidrs.js';

/** The environment variable every service reads for its outbound allow-list. */
export const OUTBOUND_ALLOW_CIDRS_SETTING = 'FLOWMESH_OUTBOUND_ALLOW_CIDRS';

/**
 * `FLOWMESH_OUTBOUND_ALLOW_CIDRS` in a service's config schema: comma-separated CIDR ranges,
 * empty or absent by default (nothing internal allowed). A bad entry fails start-up, named.
 */
export function outboundAllowCidrsSetting() {
  return z
    .string()
    .optional()
    .transform((value, ctx): AllowedCidr[] => {
      try {
        return parseAllowCidrs(value);
      } catch (error) {
        if (!(error instanceof AllowCidrsError)) throw error;
        ctx.addIssue({ code: 'custom', message: `must be comma-separated CIDR ranges (${error.message})` });
        return z.NEVER;
      }
    });
}
