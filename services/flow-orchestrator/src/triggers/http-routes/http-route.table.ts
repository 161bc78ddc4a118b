import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { HttpTriggerStore, type HttpTriggerRow } from './http-trigger.store.js';
import { RouteMatcher, type MatchableRoute, type RouteMatch } from './route-matcher.js';

/** How often a replica compares its route table's version with the database's (ms). */
export const ROUTE_TABLE_REFRESH_MS = Symbol('flow-orchestrator.http-routes.refresh-ms');

export interface ServedRoute extends MatchableRoute {
  readonly row: HttpTriggerRow;
}

/** The segments a route is served at: `<workspace>/<route>` when workspaced, else `<route>`. */
export function servedSegments(
  row: Pick<HttpTriggerRow, 'workspace_id' | 'route_path' | 'workspaced_route'>,
): string[] {
  const segments = row.route_path.split('/');
  return row.workspaced_route ? [row.workspace_id, ...segments] : segments;
}

/**
 * Every enabled route, in memory, so a request is matched without a database read. Built from
 * one snapshot of `http_trigger` with its version; rebuilt at once after a change made in this
 * process, and within `ROUTE_TABLE_REFRESH_MS` after one made by another replica (each replica
 * polls the version, one tiny indexed read). Windmill does the same with a 60 s poll.
 */
@Injectable()
export class HttpRouteTable implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(HttpRouteTable.name);
  private matcher = new RouteMatcher<ServedRoute>([]);
  private version = -1;
  private loads: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: HttpTriggerStore,
    @Inject(ROUTE_TABLE_REFRESH_MS) private readonly refreshMs: number,
  ) {}

  onApplicationBootstrap(): void {
    void this.reload().catch((error: unknown) =>
      this.log.warn(`HTTP routes not loaded yet: ${String(error)}`),
    );
    this.timer = setInterval(() => {
      void this.refreshIfChanged().catch((error: unknown) =>
        this.log.warn(`HTTP routes not refreshed: ${String(error)}`),
      );
    }, this.refreshMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async match(method: string, segments: readonly string[]): Promise<RouteMatch<ServedRoute>> {
    if (this.version < 0) await this.reload();
    return this.matcher.match(method, segments);
  }

  /** After a write of this process: the next request sees it. */
  reload(): Promise<void> {
    // Chained: a load that began before the write could miss it, so one more runs after it.
    this.loads = this.loads.catch(() => undefined).then(() => this.load());
    return this.loads;
  }

  private async refreshIfChanged(): Promise<void> {
    if ((await this.store.version()) !== this.version) await this.reload();
  }

  private async load(): Promise<void> {
    const { version, rows } = await this.store.enabledRoutes();
    this.matcher = new RouteMatcher(
      rows.map((row) => ({ row, method: row.http_method, segments: servedSegments(row) })),
    );
    this.version = version;
  }
}
