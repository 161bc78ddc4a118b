import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from './anthropic/anthropic.adapter.js';
import { googleAIAdapter } from './googleai/googleai.adapter.js';
import { mistralAdapter } from './mistral/mistral.adapter.js';
import { openaiAdapter } from './openai/openai.adapter.js';
import { openrouterAdapter } from './openrouter/openrouter.adapter.js';
import type { ProviderCallError } from './provider-call.error.js';
import type { ImageCall, ImagesCodec } from './provider-adapter.js';

const PIXEL = 'iVBORw0KGgo=';
const call: ImageCall = {
  model: 'draw-1',
  prompt: 'A red pixel',
  system: 'You draw.',
  images: [{ mediaType: 'image/jpeg', data: '/9j/4A==' }],
  temperature: 0.5,
};
const credentials = { api_key: 'k' };

function failure(codec: ImagesCodec, body: unknown): ProviderCallError {
  try {
    codec.parseResponse(body, call);
  } catch (error) {
    return error as ProviderCallError;
  }
  throw new Error('expected the answer to be refused');
}

// `images`: each provider's way to draw, built and read; the answer without a picture is the user's.
describe('image generation codecs', () => {
  it('OpenAI: the Responses API with the image_generation tool, forced; the picture from its call item', () => {
    const codec = openaiAdapter.transport === 'http' ? openaiAdapter.images! : undefined;
    expect(codec!.buildRequest(call, credentials)).toEqual({
      method: 'POST',
      url: 'https://api.openai.com/v1/responses',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: {
        model: 'draw-1',
        instructions: 'You draw.',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'A red pixel' },
              { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4A==' },
            ],
          },
        ],
        tools: [{ type: 'image_generation', output_format: 'png' }],
        tool_choice: { type: 'image_generation' },
        temperature: 0.5,
        store: false,
      },
    });
    expect(
      codec!.parseResponse(
        {
          model: 'gpt-image-1-2025',
          output: [
            { type: 'reasoning', summary: [] },
            { type: 'image_generation_call', status: 'completed', output_format: 'webp', result: PIXEL },
            { type: 'message', content: [{ type: 'output_text', text: 'Here it is.' }] },
          ],
          usage: { input_tokens: 7, output_tokens: 9 },
        },
        call,
      ),
    ).toEqual({
      data: PIXEL,
      mediaType: 'image/webp',
      model: 'gpt-image-1-2025',
      text: 'Here it is.',
      inputTokens: 7,
      outputTokens: 9,
    });
    const declined = failure(codec!, {
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'I cannot draw that.' }] }],
    });
    expect(declined.errorClass).toBe('bad_request_user');
    expect(declined.message).toBe(
      'OpenAI answered without an image: "I cannot draw that."; check that draw-1 generates images',
    );
  });

  it('OpenRouter: Chat Completions with modalities; the picture is a data URL in message.images', () => {
    const codec = openrouterAdapter.transport === 'http' ? openrouterAdapter.images! : undefined;
    const built = codec!.buildRequest(call, credentials);
    expect(built.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(built.body).toEqual({
      model: 'draw-1',
      messages: [
        { role: 'system', content: 'You draw.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'A red pixel' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4A==' } },
          ],
        },
      ],
      modalities: ['image', 'text'],
      temperature: 0.5,
    });
    expect(
      codec!.parseResponse(
        {
          model: 'google/gemini-2.5-flash-image',
          choices: [
            {
              message: {
                content: 'Done.',
                images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } }],
              },
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 1290 },
        },
        call,
      ),
    ).toEqual({
      data: PIXEL,
      mediaType: 'image/png',
      model: 'google/gemini-2.5-flash-image',
      text: 'Done.',
      inputTokens: 3,
      outputTokens: 1290,
    });
    expect(failure(codec!, { choices: [{ message: { content: '' } }] }).message).toBe(
      'OpenRouter answered without an image; check that draw-1 generates images',
    );
  });

  it('Gemini: generateContent with the IMAGE modality; the picture is an inlineData part, thoughts left out', () => {
    const codec = googleAIAdapter.transport === 'http' ? googleAIAdapter.images! : undefined;
    expect(codec!.buildRequest(call, credentials)).toEqual({
      method: 'POST',
      url: 'https://generativelanguage.googleapis.com/v1beta/models/draw-1:generateContent',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: {
        systemInstruction: { parts: [{ text: 'You draw.' }] },
        contents: [
          {
            role: 'user',
            parts: [{ text: 'A red pixel' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/4A==' } }],
          },
        ],
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], temperature: 0.5 },
      },
    });
    expect(
      codec!.parseResponse(
        {
          modelVersion: 'gemini-2.5-flash-image',
          candidates: [
            {
              finishReason: 'STOP',
              content: {
                parts: [
                  { text: 'thinking...', thought: true },
                  { text: 'A pixel.' },
                  { inlineData: { mimeType: 'image/png', data: PIXEL } },
                ],
              },
            },
          ],
          usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1290, thoughtsTokenCount: 10 },
        },
        call,
      ),
    ).toEqual({
      data: PIXEL,
      mediaType: 'image/png',
      model: 'gemini-2.5-flash-image',
      text: 'A pixel.',
      inputTokens: 4,
      outputTokens: 1300,
    });
    expect(failure(codec!, { candidates: [], promptFeedback: { blockReason: 'SAFETY' } }).message).toBe(
      'Gemini answered without an image (SAFETY); check that draw-1 generates images',
    );
  });

  it('providers without image models have no codec', () => {
    expect(anthropicAdapter.transport === 'http' && anthropicAdapter.images).toBeFalsy();
    expect(mistralAdapter.transport === 'http' && mistralAdapter.images).toBeFalsy();
  });
});
