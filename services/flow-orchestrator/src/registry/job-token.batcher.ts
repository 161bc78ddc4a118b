import {
  JOB_TOKEN_BATCH_MAX,
  MeshError,
  type registryIdentityContract,
  type RegistryIdentityClient,
} from '@flowmesh/contracts';
import type { z } from 'zod';

type IssueRequest = z.input<typeof registryIdentityContract.issueJobToken.request>;
type Issued = z.output<typeof registryIdentityContract.issueJobToken.reply>;

interface Waiting {
  readonly request: IssueRequest;
  resolve(issued: Issued): void;
  reject(error: unknown): void;
}

/**
 * Job tokens asked of the registry in batches: runs are started in bursts (a worker ends many
 * flows in one commit, their callers start the next ones together), and one message per burst
 * costs the registry, NATS and this process far less than one per run. A request waits for the
 * end of the current turn of the event loop, or for the batch in flight, never for a timer.
 */
export class JobTokenBatcher {
  private queue: Waiting[] = [];
  private scheduled = false;
  private sending = false;

  constructor(private readonly registry: RegistryIdentityClient) {}

  issue(request: IssueRequest): Promise<Issued> {
    return new Promise<Issued>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (this.sending || this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drain();
      });
    });
  }

  /** One batch in flight at a time; whatever queued meanwhile goes in the next. */
  private async drain(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length > 0) await this.send(this.queue.splice(0, JOB_TOKEN_BATCH_MAX));
    } finally {
      this.sending = false;
    }
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return this.sendOne(batch[0]);
    let results;
    try {
      ({ results } = await this.registry.issueJobTokens({ requests: batch.map((w) => w.request) }));
    } catch (error) {
      // One invalid request fails the whole batch's validation, and a registry that predates
      // batches has no responder for them: each on its own then answers exactly as before.
      if (
        error instanceof MeshError &&
        (error.code === 'VALIDATION_FAILED' || error.code === 'UNAVAILABLE')
      ) {
        await Promise.all(batch.map((waiting) => this.sendOne(waiting)));
      } else for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, i) => {
      const result = results[i];
      if (!result)
        waiting.reject(new MeshError('INTERNAL', 'the registry answered fewer job tokens than asked'));
      else if (result.ok) waiting.resolve({ token: result.token, expiresAt: result.expiresAt });
      else waiting.reject(MeshError.fromEnvelope(result.error));
    });
  }

  private async sendOne(waiting: Waiting): Promise<void> {
    try {
      waiting.resolve(await this.registry.issueJobToken(waiting.request));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
