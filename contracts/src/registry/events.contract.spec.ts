import { describe, expect, it } from 'vitest';
import { ITEM_CHANGES, ITEM_EVENTS, ITEM_EVENTS_SUBJECTS, ITEM_KINDS } from './events.contract.js';

describe('ITEM_EVENTS_SUBJECTS', () => {
  it.each(ITEM_KINDS)('%s: covers every change of that kind and no other kind', (kind) => {
    const [domain, name, wildcard] = ITEM_EVENTS_SUBJECTS[kind].split('.');
    expect(wildcard).toBe('>');
    for (const change of ITEM_CHANGES)
      expect(ITEM_EVENTS[kind][change].subject).toBe(`${domain}.${name}.${change}`);
    for (const other of ITEM_KINDS.filter((k) => k !== kind))
      expect(ITEM_EVENTS[other].created.subject.startsWith(`${domain}.${name}.`)).toBe(false);
  });
});
