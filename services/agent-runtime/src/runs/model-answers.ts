import { createHash } from 'node:crypto';
import type { ChatCompletedEvent, ChatFinalEvent } from '@flowmesh/contracts';
import { stringify } from 'safe-stable-stringify';

/** Where a step's model answers are kept: on its `agent_run` row, read back by a replica taking over. */
export interface ModelAnswerStore {
  /** Answers kept by earlier runs of the step, by call key. */
  readonly known: Readonly<Record<string, ChatCompletedEvent>>;
  /** Keeps one answer under its key; an answer kept under that key before is left as it was. */
  keep(key: string, answer: ChatCompletedEvent): Promise<void>;
}

/**
 * The step's model calls, each answered once. A call's key is its request's digest and how many
 * times this run asked the same request before, so a run taken up again after its replica died
 * (from its start or from its last turn) finds the answers it had received under the same keys and
 * does not ask for them again: only the call in flight at the crash is asked again, under the same
 * idempotency key (`<job id>:<key>`, sent on to providers). An answer is kept before the loop acts
 * on it; a failed call is not kept (it is asked again).
 */
export class ModelAnswers {
  private readonly asked = new Map<string, number>();
  /** Answers this run took from the store instead of asking (the step's log says how many). */
  reused = 0;

  constructor(
    private readonly jobId: string,
    private readonly store: ModelAnswerStore,
  ) {}

  async answer(
    request: unknown,
    ask: (idempotencyKey: string) => Promise<ChatFinalEvent>,
  ): Promise<ChatFinalEvent> {
    const digest = createHash('sha256')
      .update(stringify(request) ?? '')
      .digest('hex');
    const occurrence = this.asked.get(digest) ?? 0;
    this.asked.set(digest, occurrence + 1);
    const key = `${digest.slice(0, 32)}.${occurrence}`;
    const known = this.store.known[key];
    if (known) {
      this.reused++;
      return known;
    }
    const final = await ask(`${this.jobId}:${key}`);
    if (final.type === 'message') await this.store.keep(key, final);
    return final;
  }
}
