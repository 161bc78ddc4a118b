import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as contracts from './index.js';
import type { EventContract, RequestContract, WorkContract } from './messaging/contract.js';
import { pingContract } from './services/ping.contract.js';
import { SERVICE_NAMES } from './services/service-names.js';

/**
 * Golden wire samples: a message per subject, checked in under `contracts/test/wire/` (one file
 * per contract group, `{ "<subject>": { "request", "reply" } }` for a request, `{ "payload" }` for
 * an event or work, whose subject is `work.<tag>.<kind>`). Today's contracts must still parse
 * every sample, so a change that would refuse what a running service sends is seen before it
 * ships; and a contract added without a sample fails here until one is written. The subjects
 * made by a function rather than a contract (token streams, run streams, dead letters) are listed
 * in STREAM_PAYLOADS, keyed as their samples are.
 */
const WIRE = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'wire');

type AnyContract = RequestContract | EventContract | WorkContract;

/** Subjects built by `tokenStreamSubject`, `stepStreamSubject` and `deadLetterSubject`, and what they carry. */
const STREAM_PAYLOADS: Readonly<Record<string, z.ZodType>> = {
  'stream.<stream id>': contracts.ChatStreamEnvelopeSchema,
  'runstream.<run job>.<step job>': contracts.AgentStreamEnvelopeSchema,
  'dlq.<stream>.<durable>': contracts.DeadLetterSchema,
};
type Sample = { request?: unknown; reply?: unknown; payload?: unknown };

function isContract(value: unknown): value is AnyContract {
  if (typeof value !== 'object' || value === null) return false;
  const { kind } = value as { kind?: unknown };
  return kind === 'request' || kind === 'event' || kind === 'work';
}

function subjectOf(contract: AnyContract): string {
  return contract.kind === 'work' ? `work.<tag>.${contract.workKind}` : contract.subject;
}

/** Every contract the package exports, however deep it sits (`ITEM_EVENTS.resource.created`), and each service's ping. */
function everyContract(): Map<string, AnyContract> {
  const found = new Map<string, AnyContract>();
  const seen = new Set<unknown>();
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (isContract(value)) {
      found.set(subjectOf(value), value);
      return;
    }
    if ('_zod' in value) return;
    for (const inner of Object.values(value)) walk(inner);
  };
  walk(contracts);
  for (const service of SERVICE_NAMES) walk(pingContract(service));
  return found;
}

function samples(): Map<string, { file: string; sample: Sample }> {
  const found = new Map<string, { file: string; sample: Sample }>();
  for (const file of readdirSync(WIRE).filter((name) => name.endsWith('.json'))) {
    const entries = JSON.parse(readFileSync(join(WIRE, file), 'utf8')) as Record<string, Sample>;
    for (const [subject, sample] of Object.entries(entries)) {
      const earlier = found.get(subject);
      if (earlier) throw new Error(`${subject} has a sample in both ${earlier.file} and ${file}`);
      found.set(subject, { file, sample });
    }
  }
  return found;
}

function problems(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

const CONTRACTS = everyContract();
const SAMPLES = samples();

describe('wire samples (contracts/test/wire)', () => {
  it('finds the contracts: every request, event and work kind the package exports', () => {
    expect(CONTRACTS.size).toBeGreaterThan(100);
    expect(CONTRACTS.get('orchestrator.job.run_flow')).toBe(contracts.orchestratorJobsContract.runFlow);
    expect(CONTRACTS.get('evt.resource.updated')).toBe(contracts.ITEM_EVENTS.resource.updated);
    expect(CONTRACTS.get('work.<tag>.job')).toBe(contracts.runJobWork);
  });

  it('has a sample for every contract', () => {
    const missing = [...CONTRACTS.keys()].filter((subject) => !SAMPLES.has(subject));
    expect(missing, 'write a sample message for each of these in contracts/test/wire/').toEqual([]);
  });

  it('has no sample for a subject no contract defines', () => {
    const unknown = [...SAMPLES.keys()].filter(
      (subject) => !CONTRACTS.has(subject) && !(subject in STREAM_PAYLOADS),
    );
    expect(unknown).toEqual([]);
  });

  it.each(Object.entries(STREAM_PAYLOADS))('%s: parses its sample', (subject, schema) => {
    const sample = SAMPLES.get(subject)?.sample;
    expect(sample?.payload, `a sample of ${subject} in contracts/test/wire/`).toBeDefined();
    expect(problems(schema, sample?.payload)).toEqual([]);
  });

  describe.each([...CONTRACTS].sort(([a], [b]) => a.localeCompare(b)))('%s', (subject, contract) => {
    it('parses its sample with the contract', () => {
      const entry = SAMPLES.get(subject);
      if (!entry) return; // reported above, once for all
      const { sample } = entry;
      if (contract.kind === 'request') {
        expect(sample.request, 'request').toBeDefined();
        expect(sample.reply, 'reply').toBeDefined();
        expect(problems(contract.request, sample.request), 'request').toEqual([]);
        expect(problems(contract.reply, sample.reply), 'reply').toEqual([]);
      } else {
        expect(sample.payload, 'payload').toBeDefined();
        expect(problems(contract.payload, sample.payload), 'payload').toEqual([]);
      }
    });
  });
});
