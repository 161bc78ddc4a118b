import { z } from 'zod';

export interface AuditConfig {
  /** Keep request and response bodies in `llm_call_audit` (off by default: they hold user content). */
  readonly bodies: boolean;
}

export const AUDIT_CONFIG = Symbol.for('flowmesh.llm-gateway.AuditConfig');
export const AUDIT_LOGGER = Symbol.for('flowmesh.llm-gateway.AuditLogger');

export const auditSettingsShape = {
  FLOWMESH_GATEWAY_AUDIT_BODIES: z
    .enum(['true', 'false'], { error: () => 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
};

type AuditSettings = z.output<z.ZodObject<typeof auditSettingsShape>>;

export function toAuditConfig(env: AuditSettings): AuditConfig {
  return { bodies: env.FLOWMESH_GATEWAY_AUDIT_BODIES };
}
