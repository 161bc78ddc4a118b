import { MeshError } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { requestFieldsOf, type Caller } from '../../http/caller.js';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { WaitForResultService } from '../../run-api/wait-for-result.service.js';
import { ArgsSchemaCheck } from '../args-schema.js';
import { TriggerMetrics } from '../trigger.metrics.js';
import { callResultOf, toolError } from './mcp-call-result.js';
import type { McpConfig } from './mcp.config.js';
import type { ToolSource } from './mcp-tool.js';

export const MCP_CONFIG = Symbol('flow-orchestrator.mcp-config');

/** What a call's handler gets from the SDK and uses: the client's progress token, cancellation, notifications. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  readonly _meta?: { readonly progressToken?: string | number };
  sendNotification(notification: ServerNotification): Promise<void>;
}

/**
 * A tool call: its arguments checked against the item's schema (every problem, each naming its
 * field, as a tool error: nothing runs), then the item's run by path as the token's user (the same use cases and permission
 * checks as `jobs/run/{f,p}/<path>`; an MCP scope starts runs as a `jobs:run` token does, with
 * its user's own permissions), recorded with `trigger: {kind: mcp, path}`, then its end. The
 * wait is sliced: between slices a progress notification goes out when the client gave a
 * progress token, and a cancelled call or a closed connection stops waiting (the run goes on).
 * Past `FLOWMESH_MCP_CALL_TIMEOUT_MS` the call answers a tool error naming the job.
 */
@Injectable()
export class McpToolCallService {
  private readonly argsCheck = new ArgsSchemaCheck();

  constructor(
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly wait: WaitForResultService,
    private readonly metrics: TriggerMetrics,
    @Inject(MCP_CONFIG) private readonly config: McpConfig,
  ) {}

  async call(
    caller: Caller,
    item: ToolSource,
    args: Record<string, unknown>,
    context: ToolCallContext,
  ): Promise<CallToolResult> {
    let jobId: string;
    try {
      jobId = await this.start(caller, item, args);
    } catch (error) {
      // Refused (arguments, rights): the agent reads why, as it would a failed run.
      if (error instanceof MeshError) return toolError(error.message);
      throw error;
    }
    return this.outcome(caller, jobId, context);
  }

  /**
   * A call made as a task (`tasks/get`, `tasks/result` follow it): the run starts with the task's
   * id as its job id and the call answers at once. A refused start is the call's error.
   */
  async startTask(
    caller: Caller,
    item: ToolSource,
    args: Record<string, unknown>,
    taskId: string,
  ): Promise<void> {
    try {
      await this.start(caller, item, args, taskId);
    } catch (error) {
      if (error instanceof MeshError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  }

  /** The run's job id, once its arguments fit the item's schema and the run is accepted. */
  private async start(
    caller: Caller,
    item: ToolSource,
    args: Record<string, unknown>,
    jobId?: string,
  ): Promise<string> {
    const issues = item.schema ? this.argsCheck.issues(item.schema, args) : [];
    if (issues.length > 0) {
      this.metrics.failed('mcp');
      const problems = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new MeshError(
        'VALIDATION_FAILED',
        `the arguments do not fit ${item.kind} ${item.path}'s schema, nothing was run: ${problems}`,
      );
    }
    const request = {
      ...requestFieldsOf(caller),
      path: item.path,
      args,
      trigger: { kind: 'mcp' as const, path: item.path },
      ...(jobId === undefined ? {} : { job_id: jobId }),
    };
    try {
      const id =
        item.kind === 'flow'
          ? await this.runFlows.run(request, caller.identity)
          : await this.runScripts.run(request, caller.identity);
      this.metrics.fired('mcp');
      return id;
    } catch (error) {
      this.metrics.failed('mcp');
      if (error instanceof MeshError)
        throw new MeshError(
          error.code,
          `${item.kind} ${item.path} was not run: ${error.message}`,
          error.details,
        );
      throw error;
    }
  }

  private async outcome(caller: Caller, jobId: string, context: ToolCallContext): Promise<CallToolResult> {
    const startedAt = Date.now();
    const deadline = startedAt + this.config.callTimeoutMs;
    const progressToken = context._meta?.progressToken;
    for (let slice = 1; ; slice++) {
      const left = deadline - Date.now();
      const reply = await this.wait.waitFor(
        caller,
        jobId,
        Math.max(1, Math.min(this.config.progressIntervalMs, left)),
        false,
      );
      if (reply.completed)
        return callResultOf({ jobId, success: reply.success !== false, result: reply.result });
      if (context.signal.aborted) return toolError(`the call was cancelled; job ${jobId} still runs`);
      if (Date.now() >= deadline)
        return toolError(
          `job ${jobId} did not complete within ${this.config.callTimeoutMs} ms; it still runs: follow it with jobs_u/completed/get_result_maybe/${jobId}`,
        );
      if (progressToken === undefined) continue;
      const seconds = Math.round((Date.now() - startedAt) / 1000);
      try {
        await context.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: slice, message: `job ${jobId} running for ${seconds} s` },
        });
      } catch {
        // The connection is gone: nobody waits for the answer any more.
        return toolError(`the client went away; job ${jobId} still runs`);
      }
    }
  }
}
