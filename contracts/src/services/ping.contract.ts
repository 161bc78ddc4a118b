import { z } from 'zod';
import { defineRequest } from '../messaging/contract.js';
import { SERVICES, type ServiceName } from './service-names.js';

export const PingRequestSchema = z.object({}).strict();

export const PingReplySchema = z.object({
  service: z.string(),
  version: z.string(),
  instanceId: z.string(),
  uptimeMs: z.number().int().nonnegative(),
  /** Health of the dependencies this instance needs (`nats`, `postgres`, ...). */
  checks: z.record(z.string(), z.enum(['up', 'down'])),
});
export type PingReply = z.infer<typeof PingReplySchema>;

/** Every service answers `<root>.ping` with its name, version and dependency health. */
export function pingContract(service: ServiceName) {
  return defineRequest(`${SERVICES[service].subjectRoot}.ping`, PingRequestSchema, PingReplySchema, {
    timeoutMs: 2_000,
  });
}
