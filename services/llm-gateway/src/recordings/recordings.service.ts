import {
  createRegistryIdentityClient,
  MeshError,
  type Actor,
  type ChatEvent,
  type RecordedOperation,
  type RecordingRef,
  type ReplayMismatch,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { requestDigest, type CanonicalRequest } from './canonical-request.js';
import { RecordingRepository, type UnusedCall } from './recording.repository.js';
import { describeDifference, differenceCount, requestDifferences } from './request-diff.js';

/** Differences named in a failed replay's message (all of them are in the recording's `mismatch`). */
const DIFFERENCES_IN_MESSAGE = 3;

/**
 * Record and replay of model calls (`RecordingRef` on a request). Recording keeps each answer
 * after the provider gave it, before the caller sees its end, so a run that ended has every
 * answer stored. Replaying answers from the uploaded recording and calls no provider: the first
 * request the recording has no answer for fails with the differences from the closest recorded
 * request still unused, kept on the recording for the CLI to show.
 */
@Injectable()
export class RecordingsService {
  private readonly identity;

  constructor(
    private readonly recordings: RecordingRepository,
    mesh: MeshClient,
  ) {
    this.identity = createRegistryIdentityClient(mesh);
  }

  /**
   * A replay needs no credentials, but the caller must still be someone of the workspace:
   * UNAUTHENTICATED otherwise, as a provider call would be refused.
   */
  async checkCaller(actor: Actor, workspace: string): Promise<void> {
    await this.identity.authenticate({ token: actor.token, workspace });
  }

  /**
   * The chat's events: `call()`'s as they come, stored once the final one is known (record), or
   * the recorded ones (replay). A cancelled chat is not recorded: its answer is not one.
   */
  async *chat(
    workspace: string,
    recording: RecordingRef,
    request: CanonicalRequest,
    call: () => AsyncIterable<ChatEvent>,
  ): AsyncGenerator<ChatEvent> {
    const digest = requestDigest(request);
    if (recording.mode === 'replay') {
      let taken: Awaited<ReturnType<RecordingsService['take']>>;
      try {
        taken = await this.take(workspace, recording.id, 'chat', digest, request);
      } catch (error) {
        // No such replay (never uploaded, another workspace's): the caller's to fix, said as such.
        if (!(error instanceof MeshError && error.code === 'NOT_FOUND')) throw error;
        yield { type: 'error', error: { class: 'bad_request_user', message: error.message, fault: 'user' } };
        return;
      }
      if ('mismatch' in taken) {
        yield {
          type: 'error',
          error: { class: 'bad_request_user', message: taken.mismatch.message, fault: 'user' },
        };
        return;
      }
      for (const event of taken.answer as ChatEvent[]) yield event;
      return;
    }
    const events: ChatEvent[] = [];
    for await (const event of call()) {
      const final = event.type === 'message' || event.type === 'error';
      if (final && !(event.type === 'error' && event.error.class === 'cancelled')) {
        try {
          await this.recordings.append(workspace, recording.id, {
            operation: 'chat',
            digest,
            request,
            answer: [...events, event],
          });
        } catch (error) {
          yield {
            type: 'error',
            error: {
              class: 'bad_request_internal',
              message: `the answer could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
              fault: 'internal',
            },
          };
          return;
        }
      }
      events.push(event);
      yield event;
    }
  }

  /** A request/reply call (a decision): `call()`'s reply, stored (record), or the recorded one (replay). */
  async reply<T>(
    workspace: string,
    recording: RecordingRef,
    operation: RecordedOperation,
    request: CanonicalRequest,
    call: () => Promise<T>,
  ): Promise<T> {
    const digest = requestDigest(request);
    if (recording.mode === 'replay') {
      const taken = await this.take(workspace, recording.id, operation, digest, request);
      if ('mismatch' in taken)
        throw new MeshError('VALIDATION_FAILED', taken.mismatch.message, taken.mismatch);
      return taken.answer as T;
    }
    const answer = await call();
    await this.recordings.append(workspace, recording.id, { operation, digest, request, answer });
    return answer;
  }

  private take(
    workspace: string,
    id: string,
    operation: RecordedOperation,
    digest: string,
    request: CanonicalRequest,
  ): Promise<{ answer: unknown } | { mismatch: ReplayMismatch }> {
    return this.recordings.take(workspace, id, operation, digest, (unused) =>
      mismatchOf(operation, request, unused),
    );
  }
}

/** What differs from the closest recorded request still unused (the first of equals). */
export function mismatchOf(
  operation: RecordedOperation,
  request: CanonicalRequest,
  unused: readonly UnusedCall[],
): ReplayMismatch {
  if (unused.length === 0)
    return {
      operation,
      differences: [],
      message: `replay: a ${operation} request the recording has no answer for (every recorded ${operation} was used: the run asked more than when it was recorded)`,
    };
  let closest = unused[0];
  let fewest = differenceCount(closest.request, request);
  for (const call of unused.slice(1)) {
    const count = differenceCount(call.request, request);
    if (count < fewest) [closest, fewest] = [call, count];
  }
  const differences = requestDifferences(closest.request, request);
  const named = differences.slice(0, DIFFERENCES_IN_MESSAGE).map(describeDifference).join('; ');
  const more = fewest > DIFFERENCES_IN_MESSAGE ? ` (and ${fewest - DIFFERENCES_IN_MESSAGE} more)` : '';
  return {
    operation,
    expectedCall: closest.seq,
    differences,
    message: `replay: the ${operation} request differs from recorded call ${closest.seq}: ${named}${more}`,
  };
}
