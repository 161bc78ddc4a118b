import { z } from 'zod';

/**
 * Record and replay of a run's model calls (`flowmesh eval run --record` / `--replay`). A run
 * started with a `recording` carries it to every AI step, and the steps to every gateway request
 * they make. `record`: the gateway keeps each answer, keyed by the request. `replay`: the gateway
 * answers each request from the recording, calling no provider (no credentials needed), and fails
 * the first request that is not in it with the differences from the one expected.
 */
export const RECORDING_MODES = ['record', 'replay'] as const;
export const RecordingModeSchema = z.enum(RECORDING_MODES);
export type RecordingMode = z.infer<typeof RecordingModeSchema>;

export const RecordingRefSchema = z
  .object({
    mode: RecordingModeSchema,
    /** Chosen by the caller; a recording belongs to the workspace of the run. */
    id: z.uuid(),
  })
  .strict();
export type RecordingRef = z.infer<typeof RecordingRefSchema>;

/** The gateway operations a recording holds. */
export const RecordedOperationSchema = z.enum(['chat', 'decide']);
export type RecordedOperation = z.infer<typeof RecordedOperationSchema>;

/** One answered call of a recording, in the order the calls were answered. */
export const RecordedCallSchema = z
  .object({
    operation: RecordedOperationSchema,
    /** sha256 of the canonical request (`request`), hex. */
    digest: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in hex'),
    /** Which of the identical requests (same digest) of the run this was, from 0. */
    occurrence: z.int().nonnegative(),
    /**
     * The request as compared: provider kind and model, prompts, messages, tools and parameters;
     * never credentials, stream ids or conversation ids. Inline bytes are kept as their sha256.
     */
    request: z.record(z.string(), z.unknown()),
    /** A chat's events as streamed (`ChatEvent[]`), a decision's reply. */
    answer: z.unknown(),
  })
  .strict();
export type RecordedCall = z.infer<typeof RecordedCallSchema>;

/** One field that differs between the request expected (recorded) and the one made. */
export const RequestDifferenceSchema = z.object({
  /** `messages[3].content[0].text` */
  path: z.string(),
  /** Absent: the field was not in that request. */
  expected: z.unknown().optional(),
  got: z.unknown().optional(),
});
export type RequestDifference = z.infer<typeof RequestDifferenceSchema>;

/** Why a replay stopped: the first request the recording had no answer for. */
export const ReplayMismatchSchema = z.object({
  operation: RecordedOperationSchema,
  /** Position (0-based) of the recorded call compared with; absent when none was left. */
  expectedCall: z.int().nonnegative().optional(),
  differences: z.array(RequestDifferenceSchema),
  message: z.string(),
});
export type ReplayMismatch = z.infer<typeof ReplayMismatchSchema>;

/** `GET /api/w/<workspace>/ai/recordings/<id>`: the calls, and for a replay how it went. */
export const RecordingAnswerSchema = z.object({
  id: z.uuid(),
  mode: RecordingModeSchema,
  calls: z.array(RecordedCallSchema),
  /** Replays: the first request that differed, else null. */
  mismatch: ReplayMismatchSchema.nullable(),
  /** Replays: recorded calls no request asked for. */
  unused: z.int().nonnegative(),
});
export type RecordingAnswer = z.infer<typeof RecordingAnswerSchema>;

/** The most calls one recording holds. */
export const MAX_RECORDED_CALLS = 10_000;

/** `PUT /api/w/<workspace>/ai/recordings/<id>`: the calls a replay with that id answers from. */
export const ReplayUploadSchema = z
  .object({ calls: z.array(RecordedCallSchema).max(MAX_RECORDED_CALLS) })
  .strict();
export type ReplayUpload = z.infer<typeof ReplayUploadSchema>;
