import { describe, expect, it } from 'vitest';
import { messageJobId } from './message-job-id.js';

describe('messageJobId', () => {
  it('names one run per trigger and message, whoever delivers it and however often', () => {
    const id = messageJobId('main', 'nats', 'u/admin/orders', 'orders:1:42');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(messageJobId('main', 'nats', 'u/admin/orders', 'orders:1:42')).toBe(id);
    expect(messageJobId('main', 'nats', 'u/admin/orders', 'orders:1:43')).not.toBe(id);
    expect(messageJobId('main', 'amqp', 'u/admin/orders', 'orders:1:42')).not.toBe(id);
    expect(messageJobId('other', 'nats', 'u/admin/orders', 'orders:1:42')).not.toBe(id);
  });
});
