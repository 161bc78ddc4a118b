/**
 * Thrown by a work or event handler to give its message back now, unsettled work and all: the
 * transport naks it without delay, so another instance takes it at once rather than after the
 * ack wait, and records no failure. A handler does so when it is told the process is stopping
 * (`MeshContext.stopping`) at a point where another instance can carry on from what it committed.
 */
export class HandBackError extends Error {
  override readonly name = 'HandBackError';

  constructor(message = 'handed back: this instance is stopping') {
    super(message);
  }
}
