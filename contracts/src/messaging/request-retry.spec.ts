import { describe, expect, it } from 'vitest';
import * as contracts from '../index.js';
import type { RequestContract } from './contract.js';

/** Every request contract the package exports, by subject. */
function allRequests(): RequestContract[] {
  const found = new Map<string, RequestContract>();
  for (const value of Object.values(contracts)) {
    if (value === null || typeof value !== 'object') continue;
    for (const member of Object.values(value as Record<string, unknown>)) {
      const candidate = member as Partial<RequestContract> | null;
      if (candidate && typeof candidate === 'object' && candidate.kind === 'request' && candidate.subject)
        found.set(candidate.subject, candidate as RequestContract);
    }
  }
  return [...found.values()];
}

/** Verbs of commands whose second run could repeat an effect: never sent again by a caller. */
const EFFECT =
  /\.(create|update|update_value|delete|remove|add|add_member|remove_member|save|deploy|discard|run_flow|run_script|cancel|resume|restore|clear|revoke|set_enabled|write|apply|start|answer|lock|relock)$/;

describe('which requests a caller may send again', () => {
  it('the reads a run depends on are safe to repeat: interpolation, authentication, job tokens, items, memory', () => {
    const safe = new Set(
      allRequests()
        .filter((c) => c.retry === 'safe')
        .map((c) => c.subject),
    );
    for (const subject of [
      'registry.interpolate',
      'registry.auth.authenticate',
      'registry.access.check',
      'registry.token.issue_job',
      'registry.token.issue_jobs',
      'registry.resource.get_value_interpolated',
      'registry.variable.get_value',
      'registry.script.get',
      'registry.flow.get',
      'orchestrator.job.get',
      // What an agent step reads on its way: its memory, the model's window, model lists.
      'memory.memory.load',
      'memory.memory.get',
      'memory.memory.list',
      'memory.key.resolve',
      'memory.conversation.list',
      'memory.conversation_message.list',
      'gateway.context_window',
      'gateway.models.list',
      'locker.lock.status',
    ])
      expect(safe, subject).toContain(subject);
  });

  it('no command with an effect is marked safe', () => {
    const unsafe = allRequests()
      .filter((c) => c.retry === 'safe' && EFFECT.test(c.subject))
      .map((c) => c.subject);
    expect(unsafe).toEqual([]);
  });

  it('a request is never repeated unless its contract says so', () => {
    const plain = contracts.defineRequest(
      'test.thing.create',
      contracts.ErrorCodeSchema,
      contracts.ErrorCodeSchema,
    );
    expect(plain.retry).toBe('never');
    expect(contracts.registryItemsContract.createVariable.retry).toBe('never');
  });
});
