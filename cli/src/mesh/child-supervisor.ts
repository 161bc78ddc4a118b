import type { ExitInfo, MeshChild } from './mesh-child.js';
import { describeExit } from './wait-ready.js';

/** Restarts of one process within `RESTART_WINDOW_MS` before the supervisor gives up on it. */
export const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/** A process that kept exiting on its own: the supervisor gave up on it. */
export interface Crash {
  readonly name: string;
  readonly exit: ExitInfo;
  readonly output: string[];
}

export interface ChildSupervisorOptions {
  /** Starts the process again (the spawn only: `ready` says when it serves). */
  readonly spawn: () => MeshChild;
  /** Resolves once a restarted process serves; a rejection is ignored (its exit restarts it again). */
  readonly ready: (child: MeshChild) => Promise<void>;
  /** Told when the process exited on its own and is restarted, and when it is back. */
  readonly onRestart?: (message: string) => void;
}

/**
 * Keeps one process of the mesh running: when it exits on its own it is started again after a
 * backoff (1 s, doubling to 30 s), said through `onRestart`; `crashed` resolves only when it exits
 * more than `MAX_RESTARTS` times within ten minutes. The same policy for the services, the worker
 * and the mesh's own nats-server.
 */
export class ChildSupervisor {
  readonly crashed: Promise<Crash>;
  private current: MeshChild;
  private restarts: number[] = [];
  private pendingRestart: NodeJS.Timeout | undefined;
  private stopped = false;
  private giveUp: (crash: Crash) => void = () => {};

  constructor(
    first: MeshChild,
    private readonly options: ChildSupervisorOptions,
  ) {
    this.current = first;
    this.crashed = new Promise((resolve) => {
      this.giveUp = resolve;
    });
    this.watch(first);
  }

  /** The process running now (a restart replaces it). */
  get child(): MeshChild {
    return this.current;
  }

  /** No restart from now on: the mesh is stopping. */
  stopRestarting(): void {
    this.stopped = true;
    clearTimeout(this.pendingRestart);
  }

  private watch(child: MeshChild): void {
    void child.exited.then((exit) => {
      if (this.stopped || this.current !== child) return;
      const now = Date.now();
      this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
      if (this.restarts.length >= MAX_RESTARTS) {
        this.giveUp({ name: child.name, exit, output: child.recentOutput() });
        return;
      }
      this.restarts.push(now);
      const attempt = this.restarts.length;
      const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      this.options.onRestart?.(
        `${child.name} stopped unexpectedly (${describeExit(exit)}); restarting it in ${delay / 1000} s (restart ${attempt} of ${MAX_RESTARTS} within 10 min)`,
      );
      this.pendingRestart = setTimeout(() => {
        if (this.stopped) return;
        const next = this.options.spawn();
        this.current = next;
        this.watch(next);
        this.options
          .ready(next)
          .then(() => this.options.onRestart?.(`${next.name} is back (pid ${next.pid ?? '?'})`))
          .catch(() => undefined);
      }, delay);
    });
  }
}
