import { randomUUID } from 'node:crypto';
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

// Incubating in semconv 1.x; copied here instead of importing `/incubating` at runtime.
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';

export interface ServiceIdentity {
  serviceName: string;
  serviceVersion: string;
  /** Distinguishes replicas; a fresh UUID per process unless given. */
  instanceId?: string;
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES` may add attributes (deployment.environment, k8s.*), but the
 * service's own identity always wins so a typo in the environment cannot rename a service.
 */
export function createServiceResource(identity: ServiceIdentity): Resource {
  return detectResources({ detectors: [envDetector] }).merge(
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: identity.serviceName,
      [ATTR_SERVICE_VERSION]: identity.serviceVersion,
      [ATTR_SERVICE_INSTANCE_ID]: identity.instanceId ?? randomUUID(),
    }),
  );
}
