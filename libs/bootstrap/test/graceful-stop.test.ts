import { MeshError, pingContract } from '@flowmesh/contracts';
import { expectEventually, startTestService, type TestService } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gate, slowContract, slowServiceDefinition } from './fixtures/slow-request.fixture.js';

describe('stopping a service with a request in flight', () => {
  const gate = new Gate();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(slowServiceDefinition(gate));
  });

  afterAll(async () => {
    gate.release();
    await service?.stop();
  });

  it('stops taking requests at once, but finishes the one in flight before it closes', async () => {
    const inFlight = service.client.request(slowContract, {});
    await gate.whenStarted;

    let stopped = false;
    const stopping = service.running.stop().then(() => {
      stopped = true;
    });

    // New requests find nobody answering while the in-flight one still runs.
    await expectEventually(async () => {
      const error = await service.client
        .request(pingContract('llm-gateway'), {}, { timeoutMs: 300 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MeshError);
    });
    expect(stopped).toBe(false);

    gate.release();
    await expect(inFlight).resolves.toEqual({ finished: true });
    await stopping;
    expect(stopped).toBe(true);
  });
});
