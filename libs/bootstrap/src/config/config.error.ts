/** One setting that is missing or wrong, named by its environment variable. */
export interface ConfigProblem {
  readonly setting: string;
  /** Completes "<setting> ...", e.g. "must be a nats:// URL". */
  readonly problem: string;
  /** The value as given, already redacted; absent when the setting was not set. */
  readonly got?: string;
}

/**
 * Thrown when configuration does not validate. `describe` renders every problem on one line,
 * because a service that cannot start should say why in a line an operator reads at a glance.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('; '));
    this.name = 'ConfigError';
  }

  describe(label: string): string {
    return `${label}: invalid configuration: ${this.message}`;
  }
}

function formatProblem({ setting, problem, got }: ConfigProblem): string {
  return got === undefined ? `${setting} ${problem}` : `${setting} ${problem} (got ${JSON.stringify(got)})`;
}
