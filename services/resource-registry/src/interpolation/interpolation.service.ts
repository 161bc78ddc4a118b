import type { CallerIdentity } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { ItemsConfig } from '../items/items.config.js';
import { ITEMS_CONFIG } from '../items/items.tokens.js';
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { ReadVariablesUseCase } from '../variables/read-variables.use-case.js';
import { Interpolator, type ReferenceReader } from './interpolator.js';

/** One call resolves at most this many references, however they nest. */
const MAX_REFERENCES = 1_000;

/**
 * `$var:`/`$res:` resolution as a given identity: every reference is read through the same
 * access checks as a direct read, so interpolation never reveals more than the caller could
 * fetch one item at a time.
 */
@Injectable()
export class InterpolationService {
  constructor(
    private readonly resources: ReadResourcesUseCase,
    private readonly variables: ReadVariablesUseCase,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  /** Every reference in `value` resolved. */
  interpolate(identity: CallerIdentity, value: unknown): Promise<unknown> {
    return this.interpolator(identity).resolve(value);
  }

  /** A resource's value resolved; an `ai_agent`'s tools stay as written (they resolve when a tool runs). */
  async resourceValue(identity: CallerIdentity, path: string): Promise<unknown> {
    const resource = await this.resources.requireValue(identity, path);
    return this.interpolator(identity).resolveResource(path, resource.resourceType, resource.value);
  }

  /**
   * `registry.resource.resolve`: the caller, the resource's type and its value resolved as the
   * caller, from one read of the row (the access check runs as for `resourceValue`).
   */
  async resolvedResource(
    identity: CallerIdentity,
    path: string,
  ): Promise<{ identity: CallerIdentity; resource_type: string; value: unknown }> {
    const resource = await this.resources.requireValue(identity, path);
    const value = await this.interpolator(identity).resolveResource(
      path,
      resource.resourceType,
      resource.value,
    );
    return { identity, resource_type: resource.resourceType, value };
  }

  private interpolator(identity: CallerIdentity): Interpolator {
    const reader: ReferenceReader = {
      readVariable: (path) => this.variables.getValue(identity, path),
      readResource: (path) => this.resources.requireValue(identity, path),
    };
    return new Interpolator(reader, {
      maxDepth: this.config.maxInterpolationDepth,
      maxReferences: MAX_REFERENCES,
    });
  }
}
