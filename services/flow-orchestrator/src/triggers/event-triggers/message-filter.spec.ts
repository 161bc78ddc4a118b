import type { MessageFilter } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { passesFilters } from './message-filter.js';

const body = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const passes = (filters: MessageFilter[], value: unknown, logic: 'and' | 'or' = 'and') =>
  passesFilters(filters, logic, body(value));

describe('passesFilters (Windmill’s filter.rs)', () => {
  it('passes everything without filters, even a body that is not JSON', () => {
    expect(passes([], 'not json')).toBe(true);
  });

  it('matches a top-level key by containment, wherever it sits', () => {
    expect(passes([{ key: 'event_type', value: 'test' }], { other: 1, event_type: 'test' })).toBe(true);
    expect(passes([{ key: 'data', value: { status: 'on' } }], { data: { status: 'on', n: 5 } })).toBe(true);
    expect(passes([{ key: 'tags', value: ['a'] }], { tags: ['b', 'a'] })).toBe(true);
    expect(passes([{ key: 'event_type', value: 'test' }], { event_type: 'other' })).toBe(false);
    expect(passes([{ key: 'event_type', value: 'test' }], { other: 'test' })).toBe(false);
  });

  it('never matches a body that is not a JSON object', () => {
    expect(passes([{ key: 'a', value: 1 }], [1, 2])).toBe(false);
    expect(passes([{ key: 'a', value: 1 }], 'nope', 'or')).toBe(false);
  });

  it('follows dotted paths through objects only', () => {
    expect(
      passes([{ path: 'order.customer.tier', value: 'gold' }], { order: { customer: { tier: 'gold' } } }),
    ).toBe(true);
    expect(passes([{ path: 'order.items.0', value: 1 }], { order: { items: [1] } })).toBe(false);
  });

  it('joins the top level with and/or and nests groups', () => {
    const both: MessageFilter[] = [
      { key: 'a', value: 1 },
      { key: 'b', value: 99 },
    ];
    expect(passes(both, { a: 1, b: 2 })).toBe(false);
    expect(passes(both, { a: 1, b: 2 }, 'or')).toBe(true);
    const nested: MessageFilter[] = [
      { key: 'event', value: 'created' },
      {
        any_of: [
          { key: 'x', value: 1 },
          { key: 'y', value: 2 },
        ],
      },
      { none_of: [{ key: 'muted', value: true }] },
    ];
    expect(passes(nested, { event: 'created', y: 2 })).toBe(true);
    expect(passes(nested, { event: 'created', y: 2, muted: true })).toBe(false);
    expect(passes(nested, { event: 'created' })).toBe(false);
  });

  it('drops empty groups instead of letting them decide', () => {
    expect(passes([{ any_of: [] }, { key: 'a', value: 1 }], { a: 1 })).toBe(true);
    expect(passes([{ all_of: [{ none_of: [] }] }], 'not json')).toBe(true);
  });
});
