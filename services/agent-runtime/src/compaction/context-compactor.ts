import type { AttachmentPart, ChatMessage, SummaryMessage, ToolDefinition } from '@flowmesh/contracts';
import {
  ATTACHMENT_TOKENS,
  attachmentPartsOf,
  estimateMessages,
  estimateTokens,
  type ContextBudget,
} from './context-budget.js';
import { exchangesOf, keptFrom } from './exchanges.js';
import { recordCompaction } from '../telemetry/agent.metrics.js';
import { SUMMARY_INSTRUCTION, transcriptOf } from './summary-request.js';

/** One summary request to the model (no tools, its own settings); undefined when it failed. */
export type Summarize = (request: {
  system: string;
  transcript: string;
  /** The summarized messages' images and documents, sent with the transcript so the summary can describe them. */
  attachments: AttachmentPart[];
  maxOutputTokens: number;
}) => Promise<string | undefined>;

/** What a request puts in front of the model besides the messages. */
export interface PromptFrame {
  readonly system?: string;
  readonly tools?: readonly ToolDefinition[];
}

/** Summary requests that fail in a row before the run stops asking. */
export const MAX_SUMMARY_FAILURES = 3;

/**
 * Keeps a run's model context inside the model's window (`compaction` memory, 000): before each
 * model call it projects the prompt's size, and at the input budget replaces an older prefix of
 * the context with a summary the model writes, leaving the recent exchanges as they are. The
 * execution record is never touched: only the context the model sees is rewritten.
 */
export class ContextCompactor {
  /** The provider's input tokens for the last call, and how many messages that call carried. */
  private measured: { tokens: number; messages: number } | undefined;
  private failures = 0;

  constructor(
    readonly budget: ContextBudget,
    private readonly summarize: Summarize,
    private readonly log: (message: string) => void,
    /** The summary's output cap: the reserve, within what the model accepts. */
    private readonly summaryTokens: number,
  ) {}

  /** After a model answer: its measured input becomes the base of the next projection. */
  recordUsage(inputTokens: number | undefined, messagesSent: number): void {
    this.measured = inputTokens === undefined ? undefined : { tokens: inputTokens, messages: messagesSent };
  }

  /**
   * The prompt's projected size: the last measured input plus an estimate of the messages appended
   * since; without a measurement (none yet, or the context was rewritten), all of it estimated.
   */
  projected(messages: readonly ChatMessage[], frame: PromptFrame): number {
    if (this.measured && this.measured.messages <= messages.length)
      return this.measured.tokens + estimateMessages(messages.slice(this.measured.messages));
    return estimatePrompt(messages, frame);
  }

  /** Before a model call: a shorter context when the prompt reached the input budget and a summary helped. */
  async beforeRequest(messages: ChatMessage[], frame: PromptFrame): Promise<ChatMessage[] | undefined> {
    if (this.projected(messages, frame) < this.budget.input) return undefined;
    return this.compact(messages, frame, this.budget.retain, 'the prompt reached the input budget');
  }

  /** The provider refused the prompt as too long: every older exchange summarized, the newest kept. */
  afterOverflow(messages: ChatMessage[], frame: PromptFrame): Promise<ChatMessage[] | undefined> {
    return this.compact(messages, frame, 0, 'the provider refused the prompt as too long');
  }

  /** For memory over its size limit: one checkpoint of every older exchange. */
  checkpoint(messages: ChatMessage[]): Promise<ChatMessage[] | undefined> {
    return this.compact(messages, {}, 0, 'the memory is over its size limit', false);
  }

  private async compact(
    messages: ChatMessage[],
    frame: PromptFrame,
    retainTokens: number,
    reason: string,
    mustFitBudget = true,
  ): Promise<ChatMessage[] | undefined> {
    if (this.failures >= MAX_SUMMARY_FAILURES) return undefined;
    const exchanges = exchangesOf(messages);
    const start = keptFrom(exchanges, retainTokens);
    const prefix = exchanges.slice(0, start).flat();
    // Nothing older than what is kept, or only an earlier summary: nothing to summarize again.
    if (prefix.length === 0 || (prefix.length === 1 && prefix[0]?.role === 'summary')) return undefined;

    const text = (
      await this.summarize({
        system: SUMMARY_INSTRUCTION,
        transcript: transcriptOf(prefix),
        attachments: attachmentPartsOf(prefix),
        maxOutputTokens: this.summaryTokens,
      }).catch(() => undefined)
    )?.trim();
    const summary: SummaryMessage = {
      role: 'summary',
      text: text ?? '',
      replacedMessages: prefix.reduce(
        (count, message) => count + (message.role === 'summary' ? (message.replacedMessages ?? 0) : 1),
        0,
      ),
    };
    const replacement: ChatMessage[] = [summary, ...exchanges.slice(start).flat()];
    const before = estimatePrompt(messages, frame);
    const after = estimatePrompt(replacement, frame);
    const problem = !text
      ? 'the summary request failed or answered nothing'
      : estimateTokens(text) > this.summaryTokens
        ? 'the summary is longer than its budget'
        : after >= before
          ? 'the summary does not shorten the context'
          : mustFitBudget && after > this.budget.input
            ? 'the context still exceeds the input budget with the summary'
            : undefined;
    if (problem) {
      this.failures++;
      recordCompaction('failed');
      this.log(
        `compaction (${reason}) left the context as it was: ${problem}` +
          (this.failures >= MAX_SUMMARY_FAILURES
            ? `; ${MAX_SUMMARY_FAILURES} failures in a row, no more summaries this run`
            : ''),
      );
      return undefined;
    }
    this.failures = 0;
    this.measured = undefined;
    recordCompaction('summarized');
    this.log(
      `compaction (${reason}): ${prefix.length} message(s) summarized, about ${before} -> ${after} tokens`,
    );
    return replacement;
  }
}

/** The whole prompt estimated: system text, tool definitions and messages, attachments at their allowance. */
function estimatePrompt(messages: readonly ChatMessage[], frame: PromptFrame): number {
  return (
    estimateTokens({ system: frame.system ?? '', tools: frame.tools ?? [], messages }) +
    ATTACHMENT_TOKENS * attachmentPartsOf(messages).length
  );
}
