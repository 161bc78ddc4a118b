import { AGENT_BRAIN_INPUTS } from '../ai-agent-inputs.schema.js';
import { isRecord } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, issueAt, moduleValue } from './flow-rule.js';

/** Whether the memory transform turns memory off; undefined when only the run can tell. */
function memoryIsOff(memory: unknown): boolean | undefined {
  if (memory === undefined) return true;
  if (!isRecord(memory) || memory.type !== 'static' || !isRecord(memory.value)) return undefined;
  const { kind, context_length: contextLength } = memory.value;
  if (kind === 'off') return true;
  // A window of 0 messages is off, and so is the deprecated auto without a count.
  if (kind === 'window') return contextLength === 0;
  if (kind === 'auto') return contextLength === undefined || contextLength === 0;
  if (kind === 'compaction' || kind === 'manual') return false;
  return undefined;
}

function staticValue(transform: unknown): unknown {
  return isRecord(transform) && transform.type === 'static' ? transform.value : undefined;
}

/**
 * An agent step either links an `ai_agent` resource, which supplies its brain and tools, or
 * carries them itself, and then needs a provider and, unless memory is off and
 * previous_messages is the prompt, a user message.
 */
export const agentStepRule: FlowRule = ({ modules }) => {
  const issues: FlowIssue[] = [];
  for (const { module, path } of modules) {
    const value = moduleValue(module);
    if (value.type !== 'aiagent' || !isRecord(value.input_transforms)) continue;
    const inputs = value.input_transforms;
    const inputsPath = [...path, 'value', 'input_transforms'];
    if (typeof value.agent === 'string' && value.agent !== '') {
      for (const brain of AGENT_BRAIN_INPUTS) {
        if (brain in inputs)
          issues.push(
            issueAt(
              [...inputsPath, brain],
              `not read on a step linked to the agent resource "${value.agent}", which supplies it; remove it or unlink the step`,
            ),
          );
      }
      if (Array.isArray(value.tools) && value.tools.length > 0)
        issues.push(
          issueAt(
            [...path, 'value', 'tools'],
            `must be empty on a step linked to the agent resource "${value.agent}", which supplies the tools`,
          ),
        );
      continue;
    }
    if (!('provider' in inputs))
      issues.push(
        issueAt([...inputsPath, 'provider'], 'required unless the step links an agent resource (agent)'),
      );
    if ('user_message' in inputs) continue;
    if (staticValue(inputs.output_type) === 'image')
      issues.push(
        issueAt([...inputsPath, 'user_message'], 'required: image output always needs a user message'),
      );
    else if (
      memoryIsOff(inputs.memory) === false ||
      (memoryIsOff(inputs.memory) && !('previous_messages' in inputs))
    )
      issues.push(
        issueAt(
          [...inputsPath, 'user_message'],
          'required unless memory is off and previous_messages supplies the prompt',
        ),
      );
  }
  return issues;
};
