import { describe, expect, it } from 'vitest';
import { MAX_MEDIA_BYTES, mcpToolOutcome } from './mcp-result.js';

const PNG = 'iVBORw0KGgo=';

describe('mcpToolOutcome', () => {
  it('joins text parts and keeps an error result an error', () => {
    expect(
      mcpToolOutcome({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      ok: true,
      content: 'a\nb',
    });
    expect(mcpToolOutcome({ content: [{ type: 'text', text: 'bad' }], isError: true }).ok).toBe(false);
  });

  it('shows images and PDF blobs as media, each named where it was', () => {
    const outcome = mcpToolOutcome({
      content: [
        { type: 'text', text: 'Here:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'file:///r.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' },
        },
      ],
    });
    expect(outcome.content).toBe(
      'Here:\n[image 1: image/png, 9 bytes, attached]\n[resource file:///r.pdf 2: application/pdf, 6 bytes, attached]',
    );
    expect(outcome.media).toEqual([
      { type: 'inline_data', mediaType: 'image/png', data: PNG },
      { type: 'inline_data', mediaType: 'application/pdf', data: 'JVBERi0=' },
    ]);
  });

  it('names what it cannot show: audio, other blobs, oversized images, links', () => {
    const big = 'A'.repeat(Math.ceil((MAX_MEDIA_BYTES * 4) / 3) + 8);
    const outcome = mcpToolOutcome({
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'x://zip', mimeType: 'application/zip', blob: 'AAAA' } },
        { type: 'image', data: big, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'x://doc', name: 'doc', description: 'A document' },
        { type: 'resource', resource: { uri: 'x://t', text: 'inside' } },
      ],
    });
    expect(outcome.media).toBeUndefined();
    expect(outcome.content.split('\n')).toEqual([
      '[audio: audio/wav, 3 bytes, not shown]',
      '[resource x://zip: application/zip, 3 bytes, not shown]',
      expect.stringMatching(/^\[image: image\/png, \d+ bytes, too large to show\]$/) as unknown,
      '[resource link doc <x://doc>: A document]',
      '[resource x://t]',
      'inside',
    ]);
  });

  it('reads structured content when the result has no text', () => {
    expect(mcpToolOutcome({ content: [], structuredContent: { temp: 21 } }).content).toBe('{"temp":21}');
    expect(
      mcpToolOutcome({ content: [{ type: 'text', text: '21 C' }], structuredContent: { temp: 21 } }).content,
    ).toBe('21 C');
  });
});
