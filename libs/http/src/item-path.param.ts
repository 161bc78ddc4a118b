import { ItemPathSchema } from '@flowmesh/contracts';
import type { PipeTransform } from '@nestjs/common';
import { parseWith } from './validate-with.pipe.js';

/**
 * `@Param('path', itemPath)` on a route ending in `*path`: Express hands a wildcard over as its
 * segments, which are joined back into `u/alice/x` and checked as an item path.
 */
export const itemPath: PipeTransform<unknown, string> = {
  transform(value: unknown): string {
    return parseWith(ItemPathSchema, Array.isArray(value) ? value.join('/') : value, 'path');
  },
};
