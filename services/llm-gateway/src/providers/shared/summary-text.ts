import type { SummaryMessage } from '@flowmesh/contracts';

/**
 * How every adapter replays a compaction summary: as a user turn, labelled, so the model reads it
 * as context it handed over and not as something the user just said.
 */
export function summaryText(message: Pick<SummaryMessage, 'text'>): string {
  return `[Summary of the earlier conversation]\n${message.text}`;
}
