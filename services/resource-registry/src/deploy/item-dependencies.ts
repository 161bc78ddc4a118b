import {
  isItemPath,
  RESOURCE_REFERENCE_PREFIX,
  VARIABLE_REFERENCE_PREFIX,
  visitModules,
  type DeployItemKind,
} from '@flowmesh/contracts';

/** An item another one needs; `hash` pins a script version. */
export interface ItemRef {
  readonly kind: DeployItemKind;
  readonly path: string;
  readonly hash?: string;
}

export interface Dependencies {
  readonly items: ItemRef[];
  /** Paths of variables referenced with `$var:`; never copied, they must exist in the target. */
  readonly variables: string[];
}

/**
 * What a resource needs: the resources and variables its value references (`$res:`/`$var:`
 * strings anywhere in it); for an `ai_agent`, also its provider's resource and what its tools
 * run (scripts, flows, MCP resources, nested agents). Tools' own defaults count: the tool needs
 * them in the target when it runs there.
 */
export function resourceDependencies(resourceType: string, value: unknown): Dependencies {
  const found = new Collector();
  found.references(value);
  if (resourceType === 'ai_agent' && isRecord(value)) {
    if (isRecord(value.provider)) found.resource(value.provider.resource);
    visitModules({ modules: value.tools }, [], ({ module }) => found.moduleValue(module.value));
  }
  return found.result();
}

/** What a flow needs: scripts (by path, or path and hash), subflows, linked agents, MCP and provider resources, references. */
export function flowDependencies(flowValue: unknown): Dependencies {
  const found = new Collector();
  found.references(flowValue);
  visitModules(flowValue, [], ({ module }) => found.moduleValue(module.value));
  return found.result();
}

class Collector {
  private readonly items = new Map<string, ItemRef>();
  private readonly variables = new Set<string>();

  /** A module value or an agent tool's value. */
  moduleValue(value: unknown): void {
    if (!isRecord(value)) return;
    if (value.tool_type === 'mcp') this.resource(value.resource_path);
    if (value.type === 'script')
      this.item('script', value.path, typeof value.hash === 'string' ? value.hash : undefined);
    if (value.type === 'flow') this.item('flow', value.path);
    if (value.type === 'aiagent') {
      this.resource(value.agent);
      const provider = isRecord(value.input_transforms) ? value.input_transforms.provider : undefined;
      if (isRecord(provider) && provider.type === 'static' && isRecord(provider.value))
        this.resource(provider.value.resource);
    }
  }

  /** A resource named by a bare path or a `$res:` reference. */
  resource(value: unknown): void {
    if (typeof value !== 'string') return;
    this.item(
      'resource',
      value.startsWith(RESOURCE_REFERENCE_PREFIX) ? value.slice(RESOURCE_REFERENCE_PREFIX.length) : value,
    );
  }

  /** Every string in `value` that is exactly a `$res:` or `$var:` reference. */
  references(value: unknown): void {
    if (typeof value === 'string') {
      if (value.startsWith(RESOURCE_REFERENCE_PREFIX)) this.resource(value);
      else if (value.startsWith(VARIABLE_REFERENCE_PREFIX)) {
        const path = value.slice(VARIABLE_REFERENCE_PREFIX.length);
        if (isItemPath(path)) this.variables.add(path);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) this.references(item);
    } else if (isRecord(value)) {
      for (const item of Object.values(value)) this.references(item);
    }
  }

  result(): Dependencies {
    return { items: [...this.items.values()], variables: [...this.variables] };
  }

  /** Paths outside the registry (`hub/...` scripts) are not items to carry along. */
  private item(kind: DeployItemKind, path: unknown, hash?: string): void {
    if (typeof path !== 'string' || !isItemPath(path)) return;
    const ref: ItemRef = hash === undefined ? { kind, path } : { kind, path, hash };
    this.items.set(itemKey(ref), ref);
  }
}

/** `script:f/x/y` or `script:f/x/y@<hash>`: one entry of a deploy. */
export function itemKey(ref: ItemRef): string {
  return `${ref.kind}:${ref.path}${ref.hash === undefined ? '' : `@${ref.hash}`}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
