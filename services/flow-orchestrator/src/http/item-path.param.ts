import { ItemPathSchema } from '@flowmesh/contracts';
import type { PipeTransform } from '@nestjs/common';
import { validateWith } from './validate-with.pipe.js';

const checkPath = validateWith(ItemPathSchema, 'path');

/**
 * `@Param('path', itemPath)` on a route ending in `*path`: Express hands a wildcard over as its
 * segments, joined back into `f/team/x` and checked as an item path.
 */
export const itemPath: PipeTransform<unknown, string> = {
  transform(value: unknown): string {
    return checkPath.transform(Array.isArray(value) ? value.join('/') : value, { type: 'param' });
  },
};
