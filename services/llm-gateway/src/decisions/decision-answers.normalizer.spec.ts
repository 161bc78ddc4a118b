import type { AiDecisionQuestions } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { ProviderCallError } from '../providers/provider-call.error.js';
import { normalizeAnswers } from './decision-answers.normalizer.js';

const questions: AiDecisionQuestions = {
  intent: { type: 'choice', instructions: 'Want?', criteria: { refund: 'Money back', bug: 'Broken' } },
  urgency: { type: 'score', instructions: 'How urgent?', criteria: ['low', 'mid', 'high'] },
  angry: { type: 'noul', instructions: 'Angry?' },
};

function failure(raw: Record<string, unknown>): string | undefined {
  try {
    normalizeAnswers('typesafe', questions, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderCallError);
    return `${(error as ProviderCallError).errorClass}: ${(error as Error).message}`;
  }
  return undefined;
}

describe('normalizeAnswers', () => {
  it('derives what a provider leaves out: the choice and score from the probabilities, the legend, the confidence', () => {
    expect(
      normalizeAnswers('typesafe', questions, {
        intent: { type: 'choice', probabilities: { refund: 0.3, bug: 0.7 } },
        urgency: { type: 'score', probabilities: { low: 0.1, mid: 0.2, high: 0.7 } },
        angry: { type: 'noul', noul: 0.25, extra: 'dropped' },
      }),
    ).toEqual({
      intent: { type: 'choice', choice: 'bug', probabilities: { refund: 0.3, bug: 0.7 }, confidence: 0.7 },
      urgency: { type: 'score', score: 2, legend: 'high', probabilities: [0.1, 0.2, 0.7], confidence: 0.7 },
      angry: { type: 'noul', noul: 0.25 },
    });
  });

  it('a score without probabilities is certain of its level', () => {
    expect(
      normalizeAnswers('typesafe', { urgency: questions.urgency }, { urgency: { type: 'score', score: 1 } }),
    ).toEqual({
      urgency: { type: 'score', score: 1, legend: 'mid', probabilities: [0, 1, 0], confidence: 1 },
    });
  });

  it('refuses an answer that does not fit its question, naming it (provider_outage)', () => {
    const fine = {
      intent: { type: 'choice', choice: 'refund' },
      urgency: { type: 'score', score: 0 },
      angry: { type: 'noul', noul: 0.5 },
    };
    expect(failure({ ...fine, intent: { type: 'choice', choice: 'cancel' } })).toBe(
      'provider_outage: typesafe gave question intent an answer that is not a choice answer',
    );
    expect(failure({ ...fine, urgency: { type: 'score', score: 3 } })).toMatch(/question urgency/);
    expect(failure({ ...fine, angry: { type: 'noul', noul: 1.5 } })).toMatch(/question angry/);
    expect(failure({ ...fine, angry: { type: 'choice', choice: 'refund' } })).toMatch(/question angry/);
    expect(failure({ intent: fine.intent, urgency: fine.urgency })).toBe(
      'provider_outage: typesafe gave question angry no answer',
    );
  });
});
