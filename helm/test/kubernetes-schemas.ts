import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { expect } from 'vitest';

/** Every kind the chart may render, with the model that validates it. A new kind must be added here. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
}

/**
 * Each rendered object has a model and validates against its Kubernetes (or KEDA CRD) JSON
 * schema; names are DNS labels and label values valid.
 */
export function expectValidManifests(objects: readonly RenderedObject[]): void {
  expect(objects.length).toBeGreaterThan(0);
  for (const object of objects) {
    const key = `${object.apiVersion}/${object.kind}`;
    const Model = MODELS[key];
    expect(Model, `a model for ${key}`).toBeDefined();
    expect(() => new Model(object as never).validate(), `${key} ${object.metadata.name}`).not.toThrow();
    expect(object.metadata.name, 'a DNS-1035 label').toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
    for (const value of Object.values(object.metadata.labels ?? {})) {
      expect(value, 'a valid label value').toMatch(/^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/);
    }
  }
}
