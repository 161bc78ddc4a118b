import {
  AI_AGENT_UNRESOLVED_KEYS,
  formatJsonPath,
  MeshError,
  RESOURCE_REFERENCE_PREFIX,
  VARIABLE_REFERENCE_PREFIX,
} from '@flowmesh/contracts';

/** What the interpolator reads; both throw NOT_FOUND for an item that is missing or unreadable. */
export interface ReferenceReader {
  readVariable(path: string): Promise<string>;
  readResource(path: string): Promise<{ resourceType: string; value: unknown }>;
}

export interface InterpolationLimits {
  /** How many `$res:` hops one chain may follow. */
  readonly maxDepth: number;
  /** How many references one call may resolve in all (a wide diamond of references stays bounded). */
  readonly maxReferences: number;
}

/** Keys left as written inside a value of these resource types (an agent's tools resolve when they run). */
const UNRESOLVED_KEYS: Record<string, readonly string[]> = { ai_agent: AI_AGENT_UNRESOLVED_KEYS };

const REFERENCE = /^\$(var|res):(.+)$/s;

/** Where a reference sits: the JSON path inside the value, and the chain of resources above it. */
interface Site {
  readonly path: PropertyKey[];
  readonly chain: readonly string[];
}

/**
 * Resolves `$var:<path>` and `$res:<path>` strings inside a JSON value. A resource's value is
 * itself interpolated (a provider's `$res:` credential whose `api_key` is a `$var:`), up to
 * `maxDepth` hops; a resource reached again within its own chain is a cycle. Reads are shared
 * within one call, expansions are not (so two branches never wait on each other).
 */
export class Interpolator {
  private readonly reads = new Map<string, Promise<unknown>>();
  private references = 0;

  constructor(
    private readonly reader: ReferenceReader,
    private readonly limits: InterpolationLimits,
  ) {}

  /** `value` with every reference resolved. */
  resolve(value: unknown): Promise<unknown> {
    return this.walk(value, { path: [], chain: [] }, []);
  }

  /** The value of resource `path` resolved, its type's kept keys as written; a reference back to it is a cycle. */
  resolveResource(path: string, resourceType: string, value: unknown): Promise<unknown> {
    return this.walk(
      value,
      { path: [], chain: [`${RESOURCE_REFERENCE_PREFIX}${path}`] },
      keptKeys(resourceType),
    );
  }

  private async walk(value: unknown, site: Site, kept: readonly string[]): Promise<unknown> {
    if (typeof value === 'string') return this.resolveString(value, site);
    if (Array.isArray(value)) {
      return Promise.all(
        value.map((item, index) => this.walk(item, { ...site, path: [...site.path, index] }, [])),
      );
    }
    if (value !== null && typeof value === 'object') {
      const entries = await Promise.all(
        Object.entries(value).map(async ([key, item]) => {
          if (kept.includes(key)) return [key, item] as const;
          return [key, await this.walk(item, { ...site, path: [...site.path, key] }, [])] as const;
        }),
      );
      return Object.fromEntries(entries);
    }
    return value;
  }

  private async resolveString(text: string, site: Site): Promise<unknown> {
    const match = REFERENCE.exec(text);
    if (!match) return text;
    const [, kind, path] = match as unknown as [string, 'var' | 'res', string];
    if (++this.references > this.limits.maxReferences) {
      throw new MeshError(
        'LIMIT_EXCEEDED',
        `interpolation resolves more than ${this.limits.maxReferences} references (at ${describeSite(site)})`,
      );
    }
    if (kind === 'var')
      return this.read(`${VARIABLE_REFERENCE_PREFIX}${path}`, site, () => this.reader.readVariable(path));

    const reference = `${RESOURCE_REFERENCE_PREFIX}${path}`;
    if (site.chain.includes(reference)) {
      throw new MeshError(
        'VALIDATION_FAILED',
        `interpolation cycle: ${[...site.chain, reference].join(' -> ')}`,
        {
          chain: [...site.chain, reference],
        },
      );
    }
    if (site.chain.length >= this.limits.maxDepth) {
      throw new MeshError(
        'LIMIT_EXCEEDED',
        `interpolation deeper than ${this.limits.maxDepth} resources: ${[...site.chain, reference].join(' -> ')}`,
        { chain: [...site.chain, reference] },
      );
    }
    const resource = (await this.read(reference, site, () => this.reader.readResource(path))) as {
      resourceType: string;
      value: unknown;
    };
    return this.walk(
      resource.value,
      { path: [], chain: [...site.chain, reference] },
      keptKeys(resource.resourceType),
    );
  }

  /** One read per reference per call; a failure names the reference and where it was found. */
  private read(reference: string, site: Site, load: () => Promise<unknown>): Promise<unknown> {
    let pending = this.reads.get(reference);
    if (!pending) {
      pending = load();
      this.reads.set(reference, pending);
    }
    return pending.catch((error: unknown) => {
      if (!(error instanceof MeshError)) throw error;
      const where = `cannot resolve ${reference} (at ${describeSite(site)})`;
      // Missing and unreadable read the same, so a reference cannot probe what exists.
      if (error.code === 'NOT_FOUND') throw new MeshError('NOT_FOUND', `${where}: not found`, { reference });
      if (error.code === 'VALIDATION_FAILED')
        throw new MeshError('VALIDATION_FAILED', `${where}: ${error.message}`, { reference });
      throw error;
    });
  }
}

function keptKeys(resourceType: string | undefined): readonly string[] {
  return (resourceType && UNRESOLVED_KEYS[resourceType]) || [];
}

function describeSite(site: Site): string {
  const where = formatJsonPath(site.path);
  const inside = site.chain.at(-1);
  return inside ? `${where} in ${inside}` : where;
}
