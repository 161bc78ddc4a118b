import { z } from 'zod';
import { validateWith } from './validate-with.pipe.js';

/** `@Param('id', jobIdParam)`: a job id is a UUID; anything else is a 400 naming it. */
export const jobIdParam = validateWith(z.uuid('must be a job id (a UUID)'), 'job id');
