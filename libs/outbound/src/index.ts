export { parseAddress, refusedCategory, type RefusedCategory } from './address-ranges.js';
export { AllowCidrsError, parseAllowCidrs, type AllowedCidr } from './allow-cidrs.js';
export { OUTBOUND_ALLOW_CIDRS_SETTING, outboundAllowCidrsSetting } from './allow-cidrs.setting.js';
export { OutboundPolicy, normalizeHostName, type AddressVerdict } from './outbound-policy.js';
export { findOutboundRefusal, OutboundRefusedError, type RefusalReason } from './outbound-refused.error.js';
export { createGuardedLookup, type LookupFunction, type ResolveAll } from './guarded-lookup.js';
export {
  createGuardedConnector,
  createOutboundDispatcher,
  type OutboundDispatcherOptions,
} from './outbound-dispatcher.js';
export {
  checkedUrl,
  createOutboundFetch,
  type OutboundFetch,
  type OutboundFetchOptions,
} from './outbound-fetch.js';
