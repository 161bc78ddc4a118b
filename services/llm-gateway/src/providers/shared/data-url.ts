import type { InlineDataPart } from '@flowmesh/contracts';

export function dataUrl(part: InlineDataPart): string {
  return `data:${part.mediaType};base64,${part.data}`;
}

export function isImage(part: InlineDataPart): boolean {
  return part.mediaType.startsWith('image/');
}
