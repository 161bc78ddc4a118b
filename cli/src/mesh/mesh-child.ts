import { spawn, type ChildProcess } from 'node:child_process';
import { forEachLine } from './line-splitter.js';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface MeshChildSpec {
  /** Shown in log prefixes and errors. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

const KEPT_LINES = 200;

/**
 * One OS process of the mesh, with its output split into lines. The process runs in its own
 * process group, so a Ctrl-C in the terminal reaches only the supervisor, which then stops
 * every child in order instead of all of them racing at once.
 */
export class MeshChild {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private exit: ExitInfo | undefined;

  constructor(
    readonly spec: MeshChildSpec,
    onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  ) {
    this.child = spawn(spec.command, [...spec.args], {
      env: spec.env,
      cwd: spec.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const keep = (stream: 'stdout' | 'stderr') => (line: string) => {
      this.lines.push(line);
      if (this.lines.length > KEPT_LINES) this.lines.shift();
      onLine(line, stream);
    };
    if (this.child.stdout) forEachLine(this.child.stdout, keep('stdout'));
    if (this.child.stderr) forEachLine(this.child.stderr, keep('stderr'));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        keep('stderr')(`failed to start: ${error.message}`);
        this.exit ??= { code: 127, signal: null };
        resolve(this.exit);
      });
      // 'close' (not 'exit') so every line of output has been read when it resolves.
      this.child.once('close', (code, signal) => {
        this.exit ??= { code, signal };
        resolve(this.exit);
      });
    });
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** The last lines the process wrote, oldest first, to explain a failure. */
  recentOutput(count = 30): string[] {
    return this.lines.slice(-count);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running && this.child.pid !== undefined) {
      try {
        this.child.kill(signal);
      } catch {
        // Already gone between the check and the kill.
      }
    }
  }
}
