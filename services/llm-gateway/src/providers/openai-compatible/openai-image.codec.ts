import { providerCallError } from '../provider-call.error.js';
import type { ImageCall, ImageResult, ImagesCodec, ProviderHttpRequest } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';

/**
 * How a vendor of the OpenAI family draws: OpenAI's Responses API with its `image_generation`
 * tool, or OpenRouter's Chat Completions with `modalities: ["image", "text"]` (images come back in
 * `message.images` as data URLs).
 */
export type OpenAIImageStyle = 'responses' | 'chat_modalities';

type Json = Record<string, unknown>;

const OUTPUT_FORMATS: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

export function openAIImageCodec(
  style: OpenAIImageStyle,
  vendor: string,
  request: (credentials: ProviderCredentials, body: Json) => ProviderHttpRequest,
): ImagesCodec {
  return style === 'responses'
    ? {
        buildRequest: (call, credentials) => request(credentials, responsesBody(call)),
        parseResponse: (json, call) => parseResponses(json, call, vendor),
      }
    : {
        buildRequest: (call, credentials) => request(credentials, modalitiesBody(call)),
        parseResponse: (json, call) => parseModalities(json, call, vendor),
      };
}

const dataUrl = (image: ImageCall['images'][number]) => `data:${image.mediaType};base64,${image.data}`;

function responsesBody(call: ImageCall): Json {
  return {
    model: call.model,
    ...(call.system ? { instructions: call.system } : {}),
    input: [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: call.prompt },
          ...call.images.map((image) => ({ type: 'input_image', image_url: dataUrl(image) })),
        ],
      },
    ],
    tools: [{ type: 'image_generation', output_format: 'png' }],
    // The step asked for an image: the model draws rather than answering in words.
    tool_choice: { type: 'image_generation' },
    ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
    store: false,
  };
}

interface ResponsesOutputItem {
  type?: string;
  status?: string;
  result?: string | null;
  output_format?: string;
  content?: Array<{ type?: string; text?: string }>;
}

function parseResponses(json: unknown, call: ImageCall, vendor: string): ImageResult {
  const body = (typeof json === 'object' && json !== null ? json : {}) as {
    model?: string;
    output?: ResponsesOutputItem[];
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  const output = body.output ?? [];
  const text = output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
  const drawn = output.find(
    (item) => item.type === 'image_generation_call' && typeof item.result === 'string' && item.result !== '',
  );
  if (!drawn?.result) throw noImage(vendor, call, text);
  return {
    data: drawn.result,
    mediaType: OUTPUT_FORMATS[drawn.output_format ?? 'png'] ?? 'image/png',
    model: body.model ?? call.model,
    ...(text ? { text } : {}),
    inputTokens: body.usage?.input_tokens ?? 0,
    outputTokens: body.usage?.output_tokens ?? 0,
  };
}

function modalitiesBody(call: ImageCall): Json {
  return {
    model: call.model,
    messages: [
      ...(call.system ? [{ role: 'system', content: call.system }] : []),
      {
        role: 'user',
        content: [
          { type: 'text', text: call.prompt },
          ...call.images.map((image) => ({ type: 'image_url', image_url: { url: dataUrl(image) } })),
        ],
      },
    ],
    modalities: ['image', 'text'],
    ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
  };
}

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,(.+)$/is;

function parseModalities(json: unknown, call: ImageCall, vendor: string): ImageResult {
  const body = (typeof json === 'object' && json !== null ? json : {}) as {
    model?: string;
    choices?: Array<{
      message?: { content?: string | null; images?: Array<{ image_url?: { url?: string } }> };
    }>;
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const message = body.choices?.[0]?.message;
  const text = typeof message?.content === 'string' ? message.content : '';
  const image = (message?.images ?? [])
    .map((entry) => DATA_URL.exec(entry.image_url?.url ?? ''))
    .find((match) => match !== null);
  if (!image?.[1] || !image[2]) throw noImage(vendor, call, text);
  return {
    data: image[2],
    mediaType: image[1].toLowerCase(),
    model: body.model ?? call.model,
    ...(text ? { text } : {}),
    inputTokens: body.usage?.prompt_tokens ?? 0,
    outputTokens: body.usage?.completion_tokens ?? 0,
  };
}

/** The model answered without drawing (it declined, or it cannot draw): the user's to change. */
function noImage(vendor: string, call: ImageCall, text: string) {
  const said = text.trim().slice(0, 500);
  return providerCallError(
    'bad_request_user',
    `${vendor} answered without an image${said ? `: "${said}"` : ''}; check that ${call.model} generates images`,
    { model: call.model },
  );
}
