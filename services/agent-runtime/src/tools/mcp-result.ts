import { URL_PART_MEDIA_TYPES, type InlineDataPart } from '@flowmesh/contracts';
import { cappedResult, type ToolCallOutcome } from './agent-tool.port.js';

/**
 * The largest image or PDF of one result shown to the model (decoded bytes); larger ones are
 * named only. The chat request crosses NATS (1 MB payloads by default), base64 and all.
 */
export const MAX_MEDIA_BYTES = 384 * 1024;
/** At most this many images and PDFs of one result are shown. */
export const MAX_MEDIA_PARTS = 2;

/** One part of an MCP tool result, as the protocol's `content` carries it. */
type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; description?: string; mimeType?: string }
  | { type: string };

/**
 * What the model reads of an MCP `tools/call` result: text parts (and embedded text resources) as
 * text; images and PDFs (also embedded as blob resources) as media shown with the result, each
 * named in the text where it was; audio, other blobs and resource links named only.
 * `structuredContent` is the text when the result has no text of its own.
 */
export function mcpToolOutcome(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}): ToolCallOutcome {
  const parts = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  const texts: string[] = [];
  const media: InlineDataPart[] = [];
  const show = (mediaType: string, data: string, what: string) => {
    const bytes = Math.floor((data.length * 3) / 4);
    if (!isShowable(mediaType)) return texts.push(`[${what}: ${mediaType}, ${bytes} bytes, not shown]`);
    if (bytes > MAX_MEDIA_BYTES || media.length >= MAX_MEDIA_PARTS)
      return texts.push(`[${what}: ${mediaType}, ${bytes} bytes, too large to show]`);
    media.push({ type: 'inline_data', mediaType, data });
    texts.push(`[${what} ${media.length}: ${mediaType}, ${bytes} bytes, attached]`);
  };
  for (const part of parts) {
    if ('text' in part && part.type === 'text') texts.push(part.text);
    else if ((part.type === 'image' || part.type === 'audio') && 'data' in part)
      show(part.mimeType, part.data, part.type);
    else if (part.type === 'resource' && 'resource' in part) {
      const { uri, mimeType, text, blob } = part.resource;
      if (text !== undefined) texts.push(`[resource ${uri}]\n${text}`);
      else if (blob !== undefined) show(mimeType ?? 'application/octet-stream', blob, `resource ${uri}`);
    } else if (part.type === 'resource_link' && 'uri' in part)
      texts.push(
        `[resource link ${part.name ?? ''} <${part.uri}>${part.description ? `: ${part.description}` : ''}]`,
      );
    else texts.push(`[${part.type} content, not shown]`);
  }
  const hasText = parts.some((part) => part.type === 'text');
  const text =
    result.structuredContent !== undefined && !hasText
      ? JSON.stringify(result.structuredContent)
      : texts.join('\n');
  return {
    ok: result.isError !== true,
    content: cappedResult(text),
    ...(media.length > 0 ? { media } : {}),
  };
}

function isShowable(mediaType: string): boolean {
  return (URL_PART_MEDIA_TYPES as readonly string[]).includes(mediaType);
}
