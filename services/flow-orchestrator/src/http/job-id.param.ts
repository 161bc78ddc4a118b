import { validateWith } from '@flowmesh/http';
import { z } from 'zod';

/** `@Param('id', jobIdParam)`: a job id is a UUID; anything else is a 400 naming it. */
export const jobIdParam = validateWith(z.uuid('must be a job id (a UUID)'), 'job id');
