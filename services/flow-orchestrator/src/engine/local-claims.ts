import { Injectable } from '@nestjs/common';

/**
 * The jobs this process is driving or running right now. A lease in the database keeps other
 * processes off a job; this keeps a second message for the same job, arriving here while the
 * first is handled, from starting a second driver under the same lease. Claimed synchronously,
 * before any await, so two handlers cannot both pass.
 */
@Injectable()
export class LocalClaims {
  /** Claimed jobs, each with whether it was woken (`poke`) since its holder last looked. */
  private readonly claimed = new Map<string, boolean>();

  /** True when the job was free here and is now claimed. */
  claim(jobId: string): boolean {
    if (this.claimed.has(jobId)) return false;
    this.claimed.set(jobId, false);
    return true;
  }

  /**
   * A wake-up for a job claimed here: its holder must look at the job again before it lets go
   * (`keepIfPoked`). False when the job is not claimed here.
   */
  poke(jobId: string): boolean {
    if (!this.claimed.has(jobId)) return false;
    this.claimed.set(jobId, true);
    return true;
  }

  /**
   * For a holder about to let go: true (and the claim kept, the wake-up consumed) when the job
   * was poked since the last call, so the holder looks again; false when it may let go. Checked
   * and released in one synchronous turn, no wake-up falls between the two.
   */
  keepIfPoked(jobId: string): boolean {
    if (this.claimed.get(jobId) !== true) return false;
    this.claimed.set(jobId, false);
    return true;
  }

  release(jobId: string): void {
    this.claimed.delete(jobId);
  }

  has(jobId: string): boolean {
    return this.claimed.has(jobId);
  }
}
