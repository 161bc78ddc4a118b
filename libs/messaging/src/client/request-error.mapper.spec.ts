import { errors } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { mapPublishError, mapRequestError } from './request-error.mapper.js';

describe('mapRequestError', () => {
  it('a timeout names the subject and the wait', () => {
    expect(mapRequestError(new errors.TimeoutError(), 'fm.registry.resource.get', 250)).toMatchObject({
      code: 'TIMEOUT',
      message: 'no reply on fm.registry.resource.get within 250 ms',
    });
  });

  it('no responders is UNAVAILABLE naming the subject', () => {
    const error = new errors.RequestError('no responders', { cause: new errors.NoRespondersError('fm.x.y') });
    expect(mapRequestError(error, 'fm.x.y', 1_000)).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'no service answers fm.x.y',
    });
  });

  it('a closing connection is UNAVAILABLE', () => {
    expect(mapRequestError(new errors.DrainingConnectionError(), 'fm.x.y', 1_000).code).toBe('UNAVAILABLE');
  });
});

describe('mapPublishError', () => {
  it('no stream behind the subject is UNAVAILABLE with a hint', () => {
    expect(mapPublishError(new errors.NoRespondersError('fm.work.a.b'), 'fm.work.a.b').message).toContain(
      'streams not created',
    );
  });
});
