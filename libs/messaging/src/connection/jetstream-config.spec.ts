import { STREAMS, SubjectSpace } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { consumerConfigFor, consumerDrift, streamConfigFor, streamDrift } from './jetstream-config.js';

const space = new SubjectSpace('fm');

describe('streamConfigFor', () => {
  it('prefixes the name and subjects and converts times to nanoseconds', () => {
    expect(streamConfigFor(space, STREAMS.work)).toMatchObject({
      name: 'FM_WORK',
      subjects: ['fm.work.>'],
      retention: 'workqueue',
      max_age: STREAMS.work.maxAgeMs * 1_000_000,
      duplicate_window: STREAMS.work.duplicateWindowMs * 1_000_000,
      num_replicas: 1,
    });
  });
});

describe('streamDrift', () => {
  const wanted = streamConfigFor(space, STREAMS.events);

  it('is empty for the same config, whatever the subject order', () => {
    expect(streamDrift({ ...wanted, subjects: [...wanted.subjects].reverse() }, wanted)).toEqual([]);
  });

  it('names every field that differs', () => {
    expect(streamDrift({ ...wanted, max_bytes: 1, subjects: ['fm.other.>'] }, wanted)).toEqual([
      'max_bytes',
      'subjects',
    ]);
  });
});

describe('consumerConfigFor', () => {
  const def = {
    stream: 'WORK',
    durable: 'runner-default',
    filterSubject: 'work.default.run',
    ackWaitMs: 30_000,
    maxDeliver: 5,
    backoffMs: [1_000],
    maxAckPending: 10,
  };

  it('is a durable explicit-ack consumer with one spare delivery for the dead-letter path', () => {
    expect(consumerConfigFor(space, def)).toMatchObject({
      durable_name: 'fm_runner-default',
      ack_policy: 'explicit',
      deliver_policy: 'all',
      filter_subject: 'fm.work.default.run',
      ack_wait: 30_000 * 1_000_000,
      max_deliver: 6,
      max_ack_pending: 10,
    });
  });

  it('detects a changed ack wait', () => {
    const wanted = consumerConfigFor(space, def);
    expect(consumerDrift({ ...wanted, ack_wait: 1 }, wanted)).toEqual(['ack_wait']);
  });
});
