import { DecisionAnswerSchema, type AiDecisionQuestion, type DecisionAnswer } from '@flowmesh/contracts';
import { providerCallError } from '../providers/provider-call.error.js';

/**
 * Every provider's answers in one shape (`DecisionAnswer`), checked against the questions asked:
 * a choice is one of the options, a score a level of the criteria (its `legend` the level's
 * description), a probability in [0, 1]. What a provider leaves out is derived (`confidence`: the
 * chosen answer's probability). An answer that cannot be read, or a question left unanswered,
 * is the provider's fault (`provider_outage`), named.
 */
export function normalizeAnswers(
  vendor: string,
  questions: Readonly<Record<string, AiDecisionQuestion>>,
  raw: Readonly<Record<string, unknown>>,
): Record<string, DecisionAnswer> {
  const answers: Record<string, DecisionAnswer> = {};
  for (const [name, question] of Object.entries(questions)) {
    const answer = raw[name];
    if (!isRecord(answer)) throw unreadable(vendor, name, 'no answer');
    const normalized = normalizeOne(question, answer);
    const checked = DecisionAnswerSchema.safeParse(normalized);
    if (!checked.success || !fits(question, checked.data))
      throw unreadable(vendor, name, `an answer that is not a ${question.type} answer`);
    answers[name] = checked.data;
  }
  return answers;
}

function normalizeOne(question: AiDecisionQuestion, answer: Record<string, unknown>): unknown {
  switch (question.type) {
    case 'choice': {
      const probabilities = isRecord(answer.probabilities)
        ? answer.probabilities
        : typeof answer.choice === 'string'
          ? { [answer.choice]: 1 }
          : {};
      const choice = typeof answer.choice === 'string' ? answer.choice : mostProbable(probabilities);
      return {
        type: 'choice',
        choice,
        probabilities,
        confidence: answer.confidence ?? (choice !== undefined ? probabilities[choice] : undefined),
      };
    }
    case 'score': {
      const levels = question.criteria;
      // Per level in order: an array, or an object keyed by level number or description.
      const given = answer.probabilities;
      const probabilities: unknown[] | undefined = Array.isArray(given)
        ? (given as unknown[])
        : isRecord(given)
          ? levels.map((level, index) => given[String(index)] ?? given[level])
          : undefined;
      const score =
        typeof answer.score === 'number' ? answer.score : probabilities ? argmax(probabilities) : undefined;
      const chosen = typeof score === 'number' ? levels[score] : undefined;
      return {
        type: 'score',
        score,
        legend: typeof answer.legend === 'string' ? answer.legend : chosen,
        probabilities:
          probabilities ??
          (typeof score === 'number' ? levels.map((_, index) => (index === score ? 1 : 0)) : []),
        confidence:
          answer.confidence ??
          (probabilities && typeof score === 'number' ? probabilities[score] : probabilities ? undefined : 1),
      };
    }
    case 'noul':
      return { type: 'noul', noul: answer.noul };
  }
}

/** The answer is about this question: a choice among its options, a score among its levels. */
function fits(question: AiDecisionQuestion, answer: DecisionAnswer): boolean {
  if (question.type !== answer.type) return false;
  if (answer.type === 'choice' && question.type === 'choice') return answer.choice in question.criteria;
  if (answer.type === 'score' && question.type === 'score')
    return (
      answer.score < question.criteria.length && answer.probabilities.length === question.criteria.length
    );
  return true;
}

function mostProbable(probabilities: Record<string, unknown>): string | undefined {
  let best: [string, number] | undefined;
  for (const [option, p] of Object.entries(probabilities))
    if (typeof p === 'number' && (!best || p > best[1])) best = [option, p];
  return best?.[0];
}

function argmax(values: readonly unknown[]): number | undefined {
  let best: number | undefined;
  values.forEach((value, index) => {
    if (typeof value === 'number' && (best === undefined || value > (values[best] as number))) best = index;
  });
  return best;
}

function unreadable(vendor: string, question: string, what: string) {
  return providerCallError('provider_outage', `${vendor} gave question ${question} ${what}`);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
