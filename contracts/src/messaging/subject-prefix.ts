/**
 * Every subject and stream name is scoped by a deployment-wide prefix (default `fm`), so two
 * meshes can share one NATS server and each test can isolate itself. Contracts name subjects
 * relative to the prefix (`registry.resource.get`); `SubjectSpace` turns them into wire names.
 */
export const DEFAULT_SUBJECT_PREFIX = 'fm';

const PREFIX_PATTERN = /^[a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*$/;

export class SubjectSpace {
  readonly prefix: string;

  constructor(prefix: string = DEFAULT_SUBJECT_PREFIX) {
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new Error(
        `subject prefix "${prefix}" is invalid: use letters, digits, '-', '_' separated by '.'`,
      );
    }
    this.prefix = prefix;
  }

  /** Wire subject for a relative subject or pattern (`work.default.>` -> `fm.work.default.>`). */
  subject(relative: string): string {
    return `${this.prefix}.${relative}`;
  }

  /** Relative subject for a wire subject, or undefined when it is outside this space. */
  relative(subject: string): string | undefined {
    return subject.startsWith(`${this.prefix}.`) ? subject.slice(this.prefix.length + 1) : undefined;
  }

  /** JetStream names cannot hold '.', '*', '>' or spaces: `fm` + `WORK` -> `FM_WORK`. */
  streamName(base: string): string {
    return `${this.prefix}_${base}`.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
  }

  /** Durable consumer names follow the same rule as stream names. */
  durableName(base: string): string {
    return `${this.prefix}_${base}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  }
}
