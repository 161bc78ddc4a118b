import type { EventTriggerKind } from '@flowmesh/contracts';
import { OwnerTokens } from '../owner-tokens.js';

/** The label binding a trigger's sealed owner token to the trigger (`nats:main/u/admin/orders`). */
export function eventTriggerLabel(kind: EventTriggerKind, workspace: string, path: string): string {
  return OwnerTokens.label(kind, workspace, path);
}
