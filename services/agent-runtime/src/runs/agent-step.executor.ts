import { randomUUID } from 'node:crypto';
import {
  createGatewayClient,
  createRegistryItemsClient,
  MeshError,
  type AgentAction,
  type AgentStepStartRequest,
  type AttachmentPart,
  type ChatRequestMessage,
  type RequestUserPart,
  createOrchestratorAgentStepClient,
  derivedJobId,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import { InjectMeshConnection, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { AttachmentStore } from '../attachments/attachment-store.js';
import { AGENTS_SETTINGS, type AgentsSettings } from '../agent-runtime.config.js';
import { AiDecisionError, runDecision } from '../decisions/ai-decision.js';
import { generateImage, type ImagePorts } from '../images/generate-image.js';
import { cappedBrain } from '../caps/workspace-caps.js';
import { inputError, readBrain, type AgentBrain } from '../loop/agent-brain.js';
import { linkedAgent } from '../loop/linked-agent.js';
import { OutputSchemaError } from '../loop/output-schema.js';
import { runAgentLoop, type AgentLoopPorts, type ResumedAgent } from '../loop/agent-loop.js';
import { loadHistory } from '../memory/agent-memory.js';
import { MemoryInUseError, MemoryTurns } from '../memory/memory-turns.js';
import { appendToTranscript } from '../memory/chat-transcript.js';
import type { AgentCheckpoint } from '../pause/agent-checkpoint.js';
import type { ToolSet } from '../tools/agent-tool.port.js';
import { prepareTools } from '../tools/agent-tools.js';
import { withoutAnswerableTools } from '../tools/nested-agent-tools.js';
import { McpToolError } from '../tools/mcp-tools.js';
import { OutboundClient } from '../tools/outbound-client.js';
import type { AgentStepOutcome } from './agent-run.repository.js';
import { AgentTelemetry } from '../telemetry/agent.telemetry.js';
import { StepActions } from './step-actions.js';
import { StepJobLog } from './step-job-log.js';
import { StepStream } from './step-stream.js';
import { fitted } from './step-result.js';
import { ModelAnswers, type ModelAnswerStore } from './model-answers.js';
import { isMeshFault, MeshInterrupted } from './mesh-fault.js';
import {
  countStepFailures,
  faultOf,
  recordStepFailure,
  thrownFault,
  withFault,
  type StepError,
} from './step-fault.js';
import { stepUsage } from '../loop/usage.js';

/**
 * How a run of the step ended: with the step's outcome (`stored` once `StepHooks.storeOutcome`
 * kept it), or parked on its agent's request.
 */
export type AgentStepResult =
  { readonly outcome: AgentStepOutcome; readonly stored?: boolean } | { readonly parked: AgentCheckpoint };

/** What the replica running a step learns from it: when it waits on its tools, and its progress. */
export interface StepHooks {
  readonly waitingOnTools?: (waiting: boolean) => void;
  /** True while the step waits its turn at its memory (another run uses it), false once it goes on. */
  readonly waitingOnMemory?: (waiting: boolean) => void;
  readonly progress?: AgentLoopPorts['progress'];
  /** Keeps a successful outcome while the step's memory is written (the result says `stored`). */
  readonly storeOutcome?: (outcome: AgentStepOutcome) => Promise<void>;
  /** Where each model answer is kept as it arrives, and those earlier runs of the step received. */
  readonly answers?: ModelAnswerStore;
}

/** Nest token of agent-runtime's logger. */
export const AGENT_LOGGER = Symbol('AGENT_LOGGER');

/**
 * Runs one agent step to its outcome, as the step's identity (its job token): the brain (the
 * step's inputs, or its linked `ai_agent` resource), the history, the loop of model calls through
 * the llm-gateway and tool jobs through the orchestrator, then the memory written back. A failure
 * of any of these is the step's failed outcome, named; it never throws.
 */
@Injectable()
export class AgentStepExecutor {
  constructor(
    private readonly mesh: MeshClient,
    @InjectMeshConnection() private readonly conn: MeshConnection,
    @Inject(AGENTS_SETTINGS) private readonly settings: AgentsSettings,
    @Inject(AGENT_LOGGER) private readonly logger: Logger,
    private readonly outbound: OutboundClient,
    private readonly telemetry: AgentTelemetry,
    private readonly turns: MemoryTurns,
    @Optional() private readonly attachments?: AttachmentStore,
  ) {}

  async execute(
    request: AgentStepStartRequest,
    signal: AbortSignal,
    resumed?: ResumedAgent,
    hooks: StepHooks = {},
  ): Promise<AgentStepResult> {
    const { waitingOnTools, waitingOnMemory, progress, storeOutcome } = hooks;
    const answers = new ModelAnswers(request.job_id, hooks.answers ?? { known: {}, keep: async () => {} });
    const log = this.logger.child({ job_id: request.job_id, step_id: request.step_id });
    const caller = { actor: { token: request.job_token }, workspace: request.workspace };
    const items = createRegistryItemsClient(this.mesh);
    const steps = createOrchestratorAgentStepClient(this.mesh);
    const step = { job_id: request.job_id, workspace: request.workspace };
    const jobLog = new StepJobLog(steps, step, log);
    const actions = new StepActions(steps, step, log);
    let toolSet: ToolSet | undefined;
    // The step's memory ticket stays when the step parks, is handed back or runs again (a mesh
    // fault): the same job takes it up. It goes when the step ends here.
    let keepTurn = false;
    countStepFailures(request.kind);
    try {
      if (request.kind === 'aidecision')
        return { outcome: { success: true, result: await runDecision(this.mesh, request) } };
      const agentPath = typeof request.module.agent === 'string' ? request.module.agent : undefined;
      const linked = await linkedAgent(this.mesh, request, (message) => {
        if (!resumed) jobLog.write(message);
      });
      // The workspace's caps over what the step asked (said once, not again when taken up).
      const read = cappedBrain(
        readBrain(request.module, request.args, linked),
        request.caps,
        request.agent_depth ?? 0,
        (message) => {
          if (!resumed) jobLog.write(message);
        },
      );
      // A run taken up again has its user message in its record already.
      const brain = resumed ? read : { ...read, attachments: await this.describeAttachments(request, read) };
      const image = brain.outputType === 'image';
      // A picture is not kept in a recording: a replay would call the provider after all.
      if (image && request.recording)
        throw inputError(
          'input_transforms.output_type',
          `'image' is not recorded or replayed: this run ${request.recording.mode}s its model calls (flowmesh eval run --${request.recording.mode})`,
        );
      if (image && !this.attachments)
        throw inputError(
          'input_transforms.output_type',
          "'image' stores the picture in object storage: set S3_BUCKET (and FLOWMESH_AGENT_ATTACHMENTS) for agent-runtime",
        );
      // An image model is offered no tools: none are prepared (no MCP server is reached). A nested
      // agent tool's are without those a person answers, its linked agent's as much as its own.
      toolSet = image
        ? undefined
        : await prepareTools(
            request.agent_tool ? withoutAnswerableTools(brain.tools) : brain.tools,
            brain.toolInputs,
            this.mesh,
            {
              token: request.job_token,
              workspace: request.workspace,
              timeoutMs: this.settings.toolTimeoutMs,
              evaluatedInputs: request.tool_inputs ?? {},
              ...(request.pinned_agents ? { pinnedAgents: request.pinned_agents } : {}),
              ...(request.flow_chain ? { flowChain: request.flow_chain } : {}),
              ...(request.recording ? { recording: request.recording } : {}),
              agentDepth: request.agent_depth ?? 0,
              fetch: this.outbound.fetch,
              signal,
              readResource: async (path) =>
                (await items.getResourceValueInterpolated({ ...caller, path })).value,
            },
          );
      const tools = toolSet?.tools ?? [];
      // A resumed agent goes on from its checkpoint: the history is read again only to be saved,
      // and what was said of it the first time is not said again.
      let loading = true;
      const source = await loadHistory(brain, this.mesh, {
        token: request.job_token,
        workspace: request.workspace,
        flowPath: request.flow_path,
        stepId: request.step_id,
        ...(request.memory_id === undefined ? {} : { runMemoryId: request.memory_id }),
        log: (message) => {
          if (!resumed || !loading) jobLog.write(message);
        },
        turn: {
          jobId: request.job_id,
          take: (memoryKey) =>
            this.turns.take({
              token: request.job_token,
              workspace: request.workspace,
              flowPath: request.flow_path ?? '',
              memoryKey,
              stepId: request.step_id,
              jobId: request.job_id,
              rootJob: request.root_job,
              // A step taken up again was let in once: it waits for its turn whatever the strategy.
              strategy: resumed ? 'enqueue' : (request.multitask_strategy ?? 'enqueue'),
              signal,
              ...(waitingOnMemory ? { waiting: waitingOnMemory } : {}),
              log: jobLog.write,
            }),
        },
      });
      loading = false;
      const system = [brain.systemPrompt, ...source.system].filter((text) => text).join('\n\n');
      const streamed = { rootJob: request.root_job, jobId: request.job_id, stepId: request.step_id };
      // A step taken up again (after a park, or from another replica) goes on with its stream's next seq.
      const stream = brain.streaming ? await StepStream.resume(this.conn, streamed) : undefined;
      const prompted = { ...brain, ...(system ? { systemPrompt: system } : {}) };
      const ports = this.loopPorts(request, { jobLog, actions, stream, waitingOnTools, progress, answers });
      const run = () =>
        image
          ? generateImage(prompted, source.history, this.imagePorts(request, brain, ports), signal)
          : runAgentLoop(prompted, source.history, tools, ports, signal, resumed);
      const outcome = await this.telemetry.invokeAgent(
        {
          agentName: agentPath ?? request.step_id,
          agentId: request.job_id,
          providerKind: brain.provider.kind,
          model: brain.provider.model,
          workspace: request.workspace,
        },
        run,
        (ended) =>
          'parked' in ended
            ? {}
            : {
                inputTokens: ended.usage.inputTokens,
                outputTokens: ended.usage.outputTokens,
                ...(ended.success ? {} : { errorType: ended.error.name, fault: faultOf(ended.error) }),
              },
      );
      if (answers.reused > 0)
        jobLog.write(
          `${answers.reused} model answer(s) received before the step was taken up again were used, not asked for again`,
        );
      if ('parked' in outcome) {
        keepTurn = true;
        return { parked: outcome.parked };
      }
      if (!outcome.success) {
        log.info({ error: outcome.error.name }, 'agent step failed');
        return ended(false, {
          error: outcome.error,
          messages: outcome.messages,
          usage: stepUsage(outcome.usage),
        });
      }
      // Memory is written only after a successful answer: a failed run leaves the stored one as it was.
      // A checkpoint's summary tokens join `outcome.usage` before it is read below.
      const saveMemory = async () => {
        await source
          .save?.({
            record: outcome.messages,
            context: outcome.context,
            ...(outcome.compactor
              ? { checkpoint: outcome.compactor.checkpoint.bind(outcome.compactor) }
              : {}),
          })
          .catch((error: unknown) => {
            log.warn({ err: error }, 'the memory of the step could not be saved');
            jobLog.write('the memory of the step could not be saved; the next run reads the previous one');
          });
        if (
          request.chat &&
          request.memory_id &&
          request.flow_path &&
          request.module.omit_output_from_conversation !== true
        )
          await appendToTranscript(
            this.mesh,
            {
              token: request.job_token,
              workspace: request.workspace,
              flowPath: request.flow_path,
              conversation: request.memory_id,
              jobId: request.job_id,
              stepId: request.step_id,
            },
            outcome.messages,
          ).catch((error: unknown) => {
            log.warn({ err: error }, 'the messages of the step could not be added to the conversation');
            jobLog.write("the step's messages could not be added to the conversation's transcript");
          });
      };
      const result = () =>
        ended(
          true,
          { output: outcome.output, messages: outcome.messages, usage: stepUsage(outcome.usage) },
          outcome.lastActions,
        );
      if (outcome.compactor || !storeOutcome) {
        await saveMemory();
        return result();
      }
      // No summary can change the outcome now: it is stored while the memory is written (both
      // before the orchestrator hears of it, so the next run reads this one's memory).
      // A store that failed is tried again by the caller, as it would have been without this.
      const done = result();
      const [, stored] = await Promise.all([
        saveMemory(),
        'outcome' in done
          ? storeOutcome(done.outcome).then(
              () => true,
              () => false,
            )
          : false,
      ]);
      return { ...done, stored };
    } catch (error) {
      // Not the step's failure: it is run again from its last turn (see isMeshFault).
      if (!signal.aborted && isMeshFault(error)) {
        keepTurn = true;
        throw error;
      }
      const input =
        (error instanceof MeshError && error.code === 'VALIDATION_FAILED') ||
        error instanceof OutputSchemaError;
      const fault = error instanceof AiDecisionError ? error.fault : thrownFault(error);
      const failure = withFault({
        name: input
          ? 'AgentInputError'
          : error instanceof McpToolError ||
              error instanceof AiDecisionError ||
              error instanceof MemoryInUseError
            ? error.name
            : 'AgentError',
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof AiDecisionError && error.errorClass ? { class: error.errorClass } : {}),
        ...(fault ? { fault } : {}),
      });
      recordStepFailure(request.kind, failure);
      return { outcome: { success: false, result: { error: failure } } };
    } finally {
      // Stopped (cancelled: the canceller releases it; handed back: the next replica keeps it).
      if (signal.aborted) this.turns.forget(request.job_id);
      else if (!keepTurn) await this.turns.done(request.job_id);
      await toolSet?.close();
      await Promise.all([jobLog.flushed(), actions.flushed()]);
    }
  }

  /** The step's `user_attachments`, each checked where it is and described; none without storage. */
  private async describeAttachments(
    request: AgentStepStartRequest,
    brain: AgentBrain,
  ): Promise<AttachmentPart[]> {
    if (brain.userAttachments.length === 0) return [];
    const store = this.attachments;
    if (!store)
      throw inputError(
        'input_transforms.user_attachments',
        'attachments need object storage: set S3_BUCKET (and FLOWMESH_AGENT_ATTACHMENTS) for agent-runtime',
      );
    return Promise.all(
      brain.userAttachments.map((attachment, i) =>
        store.describe(request.workspace, attachment, `input_transforms.user_attachments[${i}]`),
      ),
    );
  }

  /**
   * The attachments of the messages (this run's and replayed ones) as signed links the gateway
   * fetches; one this workspace may no longer read, or without storage, is named in text instead.
   */
  private async linkAttachments(
    workspace: string,
    messages: readonly ChatRequestMessage[],
  ): Promise<ChatRequestMessage[]> {
    const link = async (part: RequestUserPart): Promise<RequestUserPart> => {
      if (part.type !== 'attachment') return part;
      const url = await this.attachments?.linkOf(workspace, part);
      return (
        url ?? { type: 'text', text: `[attachment ${part.object.key} (${part.mediaType}) is not available]` }
      );
    };
    return Promise.all(
      messages.map(async (message) =>
        (message.role === 'user' || message.role === 'tool') &&
        message.content.some((part) => part.type === 'attachment')
          ? { ...message, content: await Promise.all(message.content.map(link)) }
          : message,
      ),
    );
  }

  /** What generating an image reaches: the step's storage location and the gateway, as the step. */
  private imagePorts(request: AgentStepStartRequest, brain: AgentBrain, loop: AgentLoopPorts): ImagePorts {
    const store = this.attachments!;
    const caller = { actor: { token: request.job_token }, workspace: request.workspace };
    return {
      target: () => store.imageTarget(request.workspace, request.job_id),
      links: async () =>
        (
          await Promise.all((brain.attachments ?? []).map((part) => store.linkOf(request.workspace, part)))
        ).filter((link) => link !== undefined),
      generate: async (parameters, signal) => {
        // Stopped mid-drawing (cancelled, handed back): the gateway is told to stop too.
        const gateway = createGatewayClient(this.mesh);
        const cancelId = randomUUID();
        const cancel = () => void gateway.cancelImage({ cancelId }).catch(() => undefined);
        signal.addEventListener('abort', cancel, { once: true });
        try {
          return await gateway.generateImage({ ...caller, ...parameters, cancelId }, { signal });
        } finally {
          signal.removeEventListener('abort', cancel);
        }
      },
      report: (action, success) => loop.report(action, success),
      log: (message) => loop.log(message),
    };
  }

  /** What the loop reaches outside through: the gateway, the step's actions, log and stream, spans. */
  private loopPorts(
    request: AgentStepStartRequest,
    run: {
      readonly jobLog: StepJobLog;
      readonly actions: StepActions;
      readonly stream: StepStream | undefined;
      readonly waitingOnTools: ((waiting: boolean) => void) | undefined;
      readonly progress: AgentLoopPorts['progress'];
      readonly answers: ModelAnswers;
    },
  ): AgentLoopPorts {
    const caller = {
      actor: { token: request.job_token },
      workspace: request.workspace,
      // Every model call of a recorded or replayed run carries the recording.
      ...(request.recording ? { recording: request.recording } : {}),
    };
    // The run's and the flow's spend budgets count every model call of the step (llm-gateway).
    const budget = { run: request.root_job, ...(request.flow_path ? { flow: request.flow_path } : {}) };
    const { stream, waitingOnTools, progress } = run;
    return {
      chat: (parameters, abort) =>
        run.answers.answer(parameters, async (idempotencyKey) => {
          const messages = await this.linkAttachments(request.workspace, parameters.messages);
          const chat = await gatewayChat(
            this.conn,
            { ...caller, ...parameters, messages, budget, idempotencyKey },
            { signal: abort },
          );
          if (stream) for await (const event of chat) stream.relay(event);
          const final = await chat.result;
          // Not the model's answer: the step runs again, and asks again under the same key.
          if (final.type === 'error' && final.error.interrupted)
            throw new MeshInterrupted(final.error.message);
          return final;
        }),
      report: run.actions.report,
      settle: run.actions.settle,
      log: run.jobLog.write,
      approvalTimeoutS: this.settings.approvalTimeoutS,
      ...(stream ? { stream: stream.publish } : {}),
      ...(waitingOnTools ? { waitingOnTools } : {}),
      ...(progress ? { progress } : {}),
      toolJobId: (iteration, callId) =>
        derivedJobId('flowmesh-agent-tool', request.job_id, iteration, callId),
      traceTool: (call, tool, runTool) =>
        this.telemetry.executeTool(
          {
            name: call.name,
            callId: call.id,
            type: (tool.tool.value as { tool_type: string }).tool_type === 'mcp' ? 'extension' : 'function',
          },
          runTool,
          (result) => (result.ok ? {} : { errorType: 'tool_error' }),
        ),
    };
  }
}

function ended(
  success: boolean,
  given: { messages: unknown[] } & Record<string, unknown>,
  lastActions: readonly AgentAction[] = [],
): AgentStepResult {
  // A failed run's error says whose fault it is (the loop's failures: agent steps only).
  const failure = success ? undefined : withFault(given.error as StepError);
  if (failure) recordStepFailure('aiagent', failure);
  const result = failure ? { ...given, error: failure } : given;
  const actions = lastActions.map((action) => ({ action, success: true }));
  return { outcome: { success, result: fitted(result), ...(actions.length > 0 ? { actions } : {}) } };
}
