import { Injectable } from '@nestjs/common';

/**
 * The jobs this process is driving or running right now. A lease in the database keeps other
 * processes off a job; this keeps a second message for the same job, arriving here while the
 * first is handled, from starting a second driver under the same lease. Claimed synchronously,
 * before any await, so two handlers cannot both pass.
 */
@Injectable()
export class LocalClaims {
  private readonly claimed = new Set<string>();

  /** True when the job was free here and is now claimed. */
  claim(jobId: string): boolean {
    if (this.claimed.has(jobId)) return false;
    this.claimed.add(jobId);
    return true;
  }

  release(jobId: string): void {
    this.claimed.delete(jobId);
  }

  has(jobId: string): boolean {
    return this.claimed.has(jobId);
  }
}
