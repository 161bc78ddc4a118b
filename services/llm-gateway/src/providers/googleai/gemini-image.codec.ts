import { providerCallError } from '../provider-call.error.js';
import type { ImageCall, ImageResult, ImagesCodec, ProviderHttpRequest } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';

interface GeminiImageResponse {
  modelVersion?: string;
  candidates?: Array<{
    finishReason?: string;
    content?: {
      parts?: Array<{ text?: string; thought?: boolean; inlineData?: { mimeType?: string; data?: string } }>;
    };
  }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number };
  promptFeedback?: { blockReason?: string };
}

/**
 * Gemini's image models (`gemini-2.5-flash-image`, ...): `generateContent` with
 * `responseModalities: ["TEXT", "IMAGE"]`; the picture comes back as an `inlineData` part.
 */
export function geminiImageCodec(
  request: (credentials: ProviderCredentials, model: string, body: unknown) => ProviderHttpRequest,
): ImagesCodec {
  return {
    buildRequest: (call, credentials) =>
      request(credentials, call.model, {
        ...(call.system ? { systemInstruction: { parts: [{ text: call.system }] } } : {}),
        contents: [
          {
            role: 'user',
            parts: [
              { text: call.prompt },
              ...call.images.map((image) => ({
                inlineData: { mimeType: image.mediaType, data: image.data },
              })),
            ],
          },
        ],
        generationConfig: {
          responseModalities: ['TEXT', 'IMAGE'],
          ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
        },
      }),
    parseResponse: (json, call) => parseImage(json as GeminiImageResponse | null, call),
  };
}

function parseImage(body: GeminiImageResponse | null, call: ImageCall): ImageResult {
  const candidate = body?.candidates?.[0];
  const parts = (candidate?.content?.parts ?? []).filter((part) => part.thought !== true);
  const text = parts.flatMap((part) => (typeof part.text === 'string' ? [part.text] : [])).join('');
  const image = parts.find((part) => part.inlineData?.data && part.inlineData.mimeType?.startsWith('image/'));
  if (!image?.inlineData?.data) {
    const why = body?.promptFeedback?.blockReason ?? candidate?.finishReason;
    const said = text.trim().slice(0, 500);
    throw providerCallError(
      'bad_request_user',
      `Gemini answered without an image${why && why !== 'STOP' ? ` (${why})` : ''}${said ? `: "${said}"` : ''}; check that ${call.model} generates images`,
      { model: call.model },
    );
  }
  const usage = body?.usageMetadata;
  return {
    data: image.inlineData.data,
    mediaType: image.inlineData.mimeType ?? 'image/png',
    model: body?.modelVersion ?? call.model,
    ...(text ? { text } : {}),
    inputTokens: usage?.promptTokenCount ?? 0,
    outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
  };
}
