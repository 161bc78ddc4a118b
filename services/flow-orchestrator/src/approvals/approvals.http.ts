import { z } from 'zod';

/** A resume id: Windmill's are unsigned 32-bit integers. */
export const ResumeIdSchema = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a resume id (a whole number)')
  .transform(Number)
  .refine((value) => value <= 0xffff_ffff, 'must be a resume id (a whole number)');

export const ApproverQuerySchema = z.looseObject({
  approver: z.string().min(1).max(255).optional(),
  payload: z.string().max(100_000).optional(),
});

/** `POST jobs/flow/resume/:id?approve=false&resume_id=3`. */
export const FlowResumeQuerySchema = z.looseObject({
  approve: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .default(true),
  resume_id: ResumeIdSchema.optional(),
});

/**
 * Windmill's `POST jobs_u/flow/resume_suspended/:id` body: the payload (an AI step's
 * `{ call_id, approved?, comment?, answer? }`), and `approved` (false disapproves; true when absent).
 * Its `approval_token`, for callers without a session, is not offered: the step's signed links are.
 */
export const ResumeSuspendedBodySchema = z
  .object({
    payload: z.unknown().optional(),
    approved: z.boolean().default(true),
    approval_token: z
      .never({
        error:
          'is not supported: answer as a signed-in user (Authorization: Bearer), or through the signed resume link of a flow approval step',
      })
      .optional(),
  })
  .default({ approved: true });
