import { splitText } from '../recording-server.js';
import type { GeminiFakePart, GeminiFakeTurn } from './gemini-fake.types.js';

type Json = Record<string, unknown>;

let responseCounter = 0;

function usageMetadata(turn: GeminiFakeTurn, final: boolean): Json {
  const prompt = turn.usage?.promptTokenCount ?? 10;
  if (!final) {
    return {
      promptTokenCount: prompt,
      totalTokenCount: prompt,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    };
  }
  const candidates = turn.usage?.candidatesTokenCount ?? 5;
  const thoughts = turn.usage?.thoughtsTokenCount;
  const cached = turn.usage?.cachedContentTokenCount;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    ...(cached !== undefined ? { cachedContentTokenCount: cached } : {}),
    totalTokenCount: prompt + candidates + (thoughts ?? 0),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
  };
}

function response(
  turn: GeminiFakeTurn,
  model: string,
  id: string,
  parts: GeminiFakePart[],
  final: boolean,
): Json {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(final ? { finishReason: turn.finishReason ?? 'STOP' } : {}),
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(turn, final),
    modelVersion: turn.modelVersion ?? model,
    responseId: id,
  };
}

/** The non-streaming `generateContent` body. */
export function renderGeminiResponse(turn: GeminiFakeTurn, model: string): Json {
  return response(turn, model, `resp-fake-${++responseCounter}`, turn.parts, true);
}

/**
 * The chunks of `streamGenerateContent`: text split into pieces (a signature on the last piece of
 * its part), function calls whole, finish reason and full usage on the last chunk.
 */
export function renderGeminiStream(turn: GeminiFakeTurn, model: string): Json[] {
  const id = `resp-fake-${++responseCounter}`;
  const pieces: GeminiFakePart[] = [];
  for (const part of turn.parts) {
    if (!('text' in part)) {
      pieces.push(part);
      continue;
    }
    const texts = splitText(part.text, turn.chunkSize ?? 8);
    texts.forEach((text, index) => {
      const last = index === texts.length - 1;
      pieces.push({
        text,
        ...(part.thought ? { thought: true } : {}),
        ...(last && part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}),
      });
    });
  }
  if (pieces.length === 0) return [response(turn, model, id, [], true)];
  return pieces.map((piece, index) => response(turn, model, id, [piece], index === pieces.length - 1));
}

export function renderGeminiBlockedPrompt(blockReason: string, model: string): Json {
  return {
    promptFeedback: { blockReason },
    usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
    modelVersion: model,
    responseId: `resp-fake-${++responseCounter}`,
  };
}

export function geminiErrorBody(code: number, status: string, message: string, details?: Json[]): Json {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}
