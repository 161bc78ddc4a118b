import {
  MeshError,
  type ChatParameters,
  type ChatRequestMessage,
  type ToolChoice,
} from '@flowmesh/contracts';
import type { ChatCall } from '../providers/provider-adapter.js';
import { ToolNameMap } from './tool-name.guard.js';

export interface PreparedChatCall {
  readonly call: ChatCall;
  readonly names: ToolNameMap;
}

/**
 * The call an adapter gets for one model: every tool name (definitions, tool choice, the
 * history's calls and results) through one `ToolNameMap`, and the request checked for what no
 * provider could take. Fails with VALIDATION_FAILED naming the field; nothing is sent then.
 */
export function prepareChatCall(parameters: ChatParameters, model: string): PreparedChatCall {
  const tools = parameters.tools ?? [];
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    if (seen.has(tool.name)) invalid(`tools[${index}].name`, `two tools are named "${tool.name}"`);
    seen.add(tool.name);
  });
  const choice = parameters.toolChoice;
  if (typeof choice === 'object' && !seen.has(choice.name)) {
    invalid('toolChoice.name', `names "${choice.name}", which is not one of the tools`);
  }
  parameters.messages.forEach((message, index) => {
    const parts = message.role === 'user' || message.role === 'tool' ? message.content : [];
    parts.forEach((part, partIndex) => {
      if (part.type === 'attachment') {
        invalid(
          `messages[${index}].content[${partIndex}]`,
          'is an attachment by reference; the gateway reads no object storage, send it as an inline_data part',
        );
      }
    });
  });

  const names = new ToolNameMap([
    ...tools.map((tool) => tool.name),
    ...historyToolNames(parameters.messages),
  ]);
  const call: ChatCall = {
    ...parameters,
    model,
    stream: parameters.stream ?? true,
    ...(parameters.tools
      ? { tools: tools.map((tool) => ({ ...tool, name: names.provider(tool.name) })) }
      : {}),
    ...(choice !== undefined ? { toolChoice: guardedChoice(choice, names) } : {}),
    messages: parameters.messages.map((message) => guardedMessage(message, names)),
  };
  return { call, names };
}

function historyToolNames(messages: readonly ChatRequestMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'assistant'
      ? (message.toolCalls ?? []).map((call) => call.name)
      : message.role === 'tool'
        ? [message.name]
        : [],
  );
}

function guardedChoice(choice: ToolChoice, names: ToolNameMap): ToolChoice {
  return typeof choice === 'string' ? choice : { type: 'tool', name: names.provider(choice.name) };
}

function guardedMessage(message: ChatRequestMessage, names: ToolNameMap): ChatRequestMessage {
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      ...message,
      toolCalls: message.toolCalls.map((call) => ({ ...call, name: names.provider(call.name) })),
    };
  }
  if (message.role === 'tool') return { ...message, name: names.provider(message.name) };
  return message;
}

function invalid(path: string, problem: string): never {
  throw new MeshError('VALIDATION_FAILED', `invalid chat request: ${path} ${problem}`, {
    issues: [{ path, message: problem }],
  });
}
