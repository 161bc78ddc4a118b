import { MeshError } from '@flowmesh/contracts';
import type { z } from 'zod';
import type { RunQuerySchema } from './jobs.http.js';
import type { JobOutcome } from './wait-for-result.service.js';

type RunQuery = z.output<typeof RunQuerySchema>;

/** The part of Express's response a wait-for-result route sets. */
export interface StatusResponse {
  status(code: number): unknown;
}

/** The run options every run route takes from its query. */
export function runOptions(query: RunQuery) {
  return {
    args: {},
    ...(query.tag === undefined ? {} : { tag: query.tag }),
    ...(query.job_id === undefined ? {} : { job_id: query.job_id }),
    ...(query.scheduled_for === undefined ? {} : { scheduled_for: query.scheduled_for }),
  };
}

/** A flow run's options: the common ones, its memory id, pinned agents, its recording. */
export function flowOptions(query: RunQuery) {
  if ((query.recording_mode === undefined) !== (query.recording_id === undefined))
    throw new MeshError(
      'VALIDATION_FAILED',
      'invalid run query: recording_mode and recording_id go together',
      {
        issues: [{ path: 'recording_id', message: 'recording_mode and recording_id go together' }],
      },
    );
  return {
    ...runOptions(query),
    ...(query.memory_id === undefined ? {} : { memory_id: query.memory_id }),
    ...(query.multitask_strategy === undefined ? {} : { multitask_strategy: query.multitask_strategy }),
    ...(query.pin_agents ? { pin_agents: true } : {}),
    ...(query.recording_mode && query.recording_id
      ? { recording: { mode: query.recording_mode, id: query.recording_id } }
      : {}),
  };
}

/** A saved script run's options: the common ones and the version (`?hash=`). */
export function scriptOptions(query: RunQuery) {
  return { ...runOptions(query), ...(query.hash === undefined ? {} : { hash: query.hash }) };
}

/** The result as JSON, 422 when the job failed (its `{ error }` is the body). */
export function answer(res: StatusResponse, outcome: JobOutcome): { toJSON(): unknown } {
  if (!outcome.success) res.status(422);
  return { toJSON: () => outcome.result ?? null };
}
