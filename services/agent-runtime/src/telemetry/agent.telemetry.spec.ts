import type { AssistantMessage, ChatFinalEvent } from '@flowmesh/contracts';
import { assistantCalls, assistantSays } from '@flowmesh/testing';
import { createTestTracing, type TestTracing } from '@flowmesh/telemetry';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readBrain } from '../loop/agent-brain.js';
import { runAgentLoop } from '../loop/agent-loop.js';
import type { PreparedTool } from '../tools/agent-tool.port.js';
import { AgentTelemetry } from './agent.telemetry.js';

const provider = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
const answer = (message: AssistantMessage): ChatFinalEvent => ({
  type: 'message',
  message,
  usage: { inputTokens: 10, outputTokens: 5 },
  finishReason: 'stop',
  provider: 'openai',
  model: 'gpt-4o-mini',
});
const adder: PreparedTool = {
  tool: {
    id: 'adder',
    summary: 'add',
    value: { tool_type: 'flowmodule', type: 'rawscript' },
  },
  definition: { name: 'add', parameters: { type: 'object' } },
  run: () => Promise.resolve({ ok: true, content: '5' }),
};

describe('AgentTelemetry', () => {
  let tracing: TestTracing;
  const telemetry = () => new AgentTelemetry();

  beforeAll(() => {
    tracing = createTestTracing({ serviceName: 'agent-runtime' });
  });
  afterAll(async () => {
    await tracing.shutdown();
  });
  beforeEach(() => tracing.reset());

  it('an invoke_agent span holds the run, an execute_tool span each tool call; tokens, no content', async () => {
    const agent = telemetry();
    const replies = [
      answer(assistantCalls('call_1', 'add', '{"a":2}') as AssistantMessage),
      answer(assistantSays('5') as AssistantMessage),
    ];
    const brain = readBrain({ type: 'aiagent', input_transforms: {} }, { provider, user_message: 'Add.' });
    const outcome = await agent.invokeAgent(
      {
        agentName: 'planner',
        agentId: 'job-1',
        providerKind: 'openai',
        model: 'gpt-4o-mini',
        workspace: 'main',
      },
      () =>
        runAgentLoop(
          brain,
          [],
          [adder],
          {
            chat: () => Promise.resolve(replies.shift()!),
            report: () => Promise.resolve(),
            log: () => undefined,
            approvalTimeoutS: 60,
            traceTool: (call, _tool, run) =>
              agent.executeTool({ name: call.name, callId: call.id, type: 'function' }, run, (result) =>
                result.ok ? {} : { errorType: 'tool_error' },
              ),
          },
          new AbortController().signal,
        ),
      (ended) =>
        'parked' in ended
          ? {}
          : { inputTokens: ended.usage.inputTokens, outputTokens: ended.usage.outputTokens },
    );
    expect(outcome.success).toBe(true);
    const [tool, run] = tracing.spans();
    expect(run.name).toBe('invoke_agent planner');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.agent.name': 'planner',
      'gen_ai.agent.id': 'job-1',
      'flowmesh.workspace': 'main',
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(tool.name).toBe('execute_tool add');
    expect(tool.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
    });
  });

  it('a failed run or tool marks its span with the error type', async () => {
    const agent = telemetry();
    await agent.executeTool(
      { name: 'add', callId: 'c', type: 'extension' },
      () => Promise.resolve({ ok: false }),
      () => ({
        errorType: 'tool_error',
      }),
    );
    await expect(
      agent.invokeAgent(
        { agentName: 'a', agentId: 'j', providerKind: 'anthropic', model: 'm', workspace: 'w' },
        () => Promise.reject(new TypeError('boom')),
        () => ({}),
      ),
    ).rejects.toThrow('boom');
    const [tool, run] = tracing.spans();
    expect([tool.status.code, tool.attributes['error.type']]).toEqual([SpanStatusCode.ERROR, 'tool_error']);
    expect([run.status.code, run.attributes['error.type'], run.attributes['gen_ai.provider.name']]).toEqual([
      SpanStatusCode.ERROR,
      'TypeError',
      'anthropic',
    ]);
  });
});
