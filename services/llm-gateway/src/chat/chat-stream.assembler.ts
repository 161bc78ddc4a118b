import type {
  AIProviderKind,
  AssistantMessage,
  ChatEvent,
  ChatUsage,
  FinishReason,
  ReasoningPart,
  TextPart,
  ToolCall,
} from '@flowmesh/contracts';
import { ProviderCallError } from '../providers/provider-call.error.js';
import type { ProviderStreamEvent } from '../providers/provider-adapter.js';
import type { ToolNameMap } from './tool-name.guard.js';

interface OpenCall {
  readonly ordinal: number;
  readonly id: string;
  readonly name: string;
  arguments: string;
  readonly signature?: string;
  finished: boolean;
}

/**
 * Turns one answer's provider pieces into the contract's events and final message: text and
 * reasoning deltas pass on at once; tool calls get ordinals in the order they started, the
 * caller's names back, and a `tool_call_finished` (at the provider's end of the call, or at the
 * end of the answer for providers that never say); usage, finish and the message come last.
 * A provider `error` piece is thrown as `ProviderCallError`.
 */
export class ChatStreamAssembler {
  private readonly content: Array<TextPart | ReasoningPart> = [];
  private readonly calls: OpenCall[] = [];
  private readonly callsByIndex = new Map<number, OpenCall>();
  private reasoningPart: number | undefined;
  private usage: ChatUsage | undefined;
  private finishReason: FinishReason | undefined;
  private providerReason: string | undefined;
  private responseId: string | undefined;
  private responseModel: string | undefined;
  /** True once anything reached the caller: from then on the answer cannot be retried. */
  emitted = false;

  constructor(
    private readonly names: ToolNameMap,
    private readonly provider: AIProviderKind,
    private readonly requestedModel: string,
  ) {}

  push(piece: ProviderStreamEvent): ChatEvent[] {
    const out = this.translate(piece);
    if (out.length > 0) this.emitted = true;
    return out;
  }

  /** The closing events: unfinished calls, usage, finish, and the final `message`. */
  end(): ChatEvent[] {
    const out: ChatEvent[] = [];
    for (const call of this.calls) if (!call.finished) out.push(this.finishCall(call));
    if (this.usage) out.push({ type: 'usage', usage: this.usage });
    const reason = this.finishReason ?? (this.calls.length > 0 ? 'tool_calls' : 'stop');
    out.push({
      type: 'finish',
      reason,
      ...(this.providerReason ? { providerReason: this.providerReason } : {}),
    });
    out.push({
      type: 'message',
      message: this.message(),
      ...(this.usage ? { usage: this.usage } : {}),
      finishReason: reason,
      provider: this.provider,
      model: this.responseModel ?? this.requestedModel,
      ...(this.responseId ? { responseId: this.responseId } : {}),
    });
    this.emitted = true;
    return out;
  }

  private translate(piece: ProviderStreamEvent): ChatEvent[] {
    switch (piece.type) {
      case 'response':
        this.responseId ??= piece.id;
        this.responseModel ??= piece.model;
        return [];
      case 'text': {
        if (piece.text === '') return [];
        const last = this.content.at(-1);
        if (last?.type === 'text') last.text += piece.text;
        else this.content.push({ type: 'text', text: piece.text });
        return [{ type: 'text_delta', text: piece.text }];
      }
      case 'reasoning': {
        let last = this.content.at(-1);
        if (last?.type !== 'reasoning' || (piece.part !== undefined && piece.part !== this.reasoningPart)) {
          last = { type: 'reasoning', text: '' };
          this.content.push(last);
        }
        this.reasoningPart = piece.part;
        last.text += piece.text;
        if (piece.signature !== undefined) last.signature = (last.signature ?? '') + piece.signature;
        if (piece.redacted !== undefined) last.redacted = (last.redacted ?? '') + piece.redacted;
        if (piece.text === '' && piece.signature === undefined && piece.redacted === undefined) return [];
        return [
          {
            type: 'reasoning_delta',
            text: piece.text,
            ...(piece.signature !== undefined ? { signature: piece.signature } : {}),
            ...(piece.redacted !== undefined ? { redacted: piece.redacted } : {}),
            ...(piece.part !== undefined ? { part: piece.part } : {}),
          },
        ];
      }
      case 'tool_call_start': {
        if (this.callsByIndex.has(piece.index)) return [];
        const call: OpenCall = {
          ordinal: this.calls.length,
          id: piece.id,
          name: this.names.caller(piece.name),
          arguments: '',
          ...(piece.signature !== undefined ? { signature: piece.signature } : {}),
          finished: false,
        };
        this.calls.push(call);
        this.callsByIndex.set(piece.index, call);
        return [{ type: 'tool_call_started', index: call.ordinal, id: call.id, name: call.name }];
      }
      case 'tool_call_delta': {
        const call = this.callsByIndex.get(piece.index);
        if (!call || call.finished || piece.arguments === '') return [];
        call.arguments += piece.arguments;
        return [{ type: 'tool_call_delta', index: call.ordinal, id: call.id, arguments: piece.arguments }];
      }
      case 'tool_call_end': {
        const call = this.callsByIndex.get(piece.index);
        return call && !call.finished ? [this.finishCall(call)] : [];
      }
      case 'usage':
        this.usage = piece.usage;
        return [];
      case 'finish':
        this.finishReason = piece.reason;
        this.providerReason = piece.providerReason;
        return [];
      case 'error':
        throw new ProviderCallError(piece.error);
    }
  }

  private finishCall(call: OpenCall): ChatEvent {
    call.finished = true;
    // An empty argument string is no JSON; every provider wants an object back on replay.
    if (call.arguments.trim() === '') call.arguments = '{}';
    return {
      type: 'tool_call_finished',
      index: call.ordinal,
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.signature !== undefined ? { signature: call.signature } : {}),
    };
  }

  private message(): AssistantMessage {
    const toolCalls: ToolCall[] = this.calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.signature !== undefined ? { signature: call.signature } : {}),
    }));
    const content =
      this.content.length === 0 && toolCalls.length === 0
        ? [{ type: 'text' as const, text: '' }]
        : this.content;
    return { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
  }
}
