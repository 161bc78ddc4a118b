import { describe, expect, it } from 'vitest';
import { sharedFilters } from './follow-replayed-events.js';

describe('sharedFilters', () => {
  it('gives subjects that differ only in their last token one `prefix.>` filter', () => {
    const filters = sharedFilters([
      'p.evt.resource.created',
      'p.evt.resource.deleted',
      'p.evt.identity.token_revoked',
      'p.evt.variable.updated',
      'p.evt.variable.created',
    ]);
    expect(Object.fromEntries(filters)).toEqual({
      'p.evt.resource.>': ['p.evt.resource.created', 'p.evt.resource.deleted'],
      'p.evt.identity.token_revoked': ['p.evt.identity.token_revoked'],
      'p.evt.variable.>': ['p.evt.variable.updated', 'p.evt.variable.created'],
    });
  });

  it('keeps subjects without a dot apart', () => {
    expect([...sharedFilters(['a', 'b']).keys()]).toEqual(['a', 'b']);
  });
});
