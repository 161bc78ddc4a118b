import { MeshError } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import type { Caller } from '../http/caller.js';
import { CancelJobUseCase } from '../jobs/cancel-job.use-case.js';

/** Cancels a queued, running or suspended job (and its steps) for its creator, an admin or a writer of its path. */
@Injectable()
export class CancelJobService {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly cancels: CancelJobUseCase,
  ) {}

  async cancel(caller: Caller, id: string, reason?: string): Promise<boolean> {
    await this.visibility.writable(caller, id);
    return this.cancels.cancel(caller.identity.workspace, id, caller.identity.username, reason ?? null);
  }

  /** As Windmill answers: a sentence, CONFLICT when the job had already ended. */
  async cancelOrRefuse(caller: Caller, id: string, reason?: string): Promise<string> {
    if (await this.cancel(caller, id, reason)) return `job ${id} canceled`;
    throw new MeshError('CONFLICT', `job ${id} has already ended; there is nothing to cancel`, { id });
  }
}
