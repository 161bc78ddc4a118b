import type { RegistryHttp } from '../sync/registry-connection.js';

/** `getupdate`'s answer: where a job is, and its logs since the offset asked for. */
export interface JobUpdate {
  readonly running: boolean;
  readonly completed: boolean;
  readonly new_logs?: string;
  readonly log_offset: number;
  readonly flow_status?: FlowStatusView | null;
}

/** The parts of `flow_status` the CLI shows. */
export interface FlowStatusView {
  readonly modules: readonly FlowModuleView[];
  readonly failure_module?: FlowModuleView;
}

export interface FlowModuleView {
  readonly id?: string;
  readonly type: string;
  readonly job?: string;
  readonly skipped?: boolean;
  readonly approvers?: readonly { approver: string }[];
}

export interface JobOutcome {
  readonly completed: boolean;
  readonly success?: boolean;
  readonly result: unknown;
}

export interface ResumeRequest {
  readonly payload: unknown;
  readonly approve: boolean;
  readonly resumeId?: number;
}

/** The orchestrator's Windmill-shaped jobs API under `/api/w/<workspace>/`, as the CLI uses it. */
export class JobsApi {
  constructor(private readonly http: RegistryHttp) {}

  get workspace(): string {
    return this.http.workspace;
  }

  runFlowPreview(value: unknown, args: Record<string, unknown>, path?: string): Promise<string> {
    return this.http.post<string>('jobs/run/preview_flow', {
      value,
      args,
      ...(path === undefined ? {} : { path }),
    });
  }

  runFlowByPath(path: string, args: Record<string, unknown>): Promise<string> {
    return this.http.post<string>(`jobs/run/f/${encodePath(path)}`, args);
  }

  getUpdate(id: string, logOffset: number): Promise<JobUpdate> {
    return this.http.get<JobUpdate>(`jobs_u/getupdate/${id}?log_offset=${logOffset}`);
  }

  getResultMaybe(id: string): Promise<JobOutcome> {
    return this.http.get<JobOutcome>(`jobs_u/completed/get_result_maybe/${id}`);
  }

  getJob(id: string): Promise<Record<string, unknown>> {
    return this.http.get<Record<string, unknown>>(`jobs_u/get/${id}`);
  }

  getLogs(id: string): Promise<string> {
    return this.http.get<string>(`jobs_u/get_logs/${id}`);
  }

  cancel(id: string, reason?: string): Promise<string> {
    return this.http.post<string>(`jobs_u/queue/cancel/${id}`, reason === undefined ? {} : { reason });
  }

  resume(id: string, request: ResumeRequest): Promise<unknown> {
    const query = new URLSearchParams({ approve: String(request.approve) });
    if (request.resumeId !== undefined) query.set('resume_id', String(request.resumeId));
    return this.http.post(`jobs/flow/resume/${id}?${query.toString()}`, request.payload ?? {});
  }
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
