import { MeshError } from '@flowmesh/contracts';

/**
 * Where a watch stands: the last offset of the run's stream (`runStreams`, the JetStream
 * sequence) relayed, how far each top-level step was told (0 nothing, 1 started, 2 finished), and
 * whether the end was sent. Written `<stream offset>.<one digit per step>[.end]` (`12.2210`): a
 * client hands back the last one it got and hears only what came after, nothing twice.
 */
export interface WatchOffset {
  agent: number;
  readonly steps: number[];
  ended: boolean;
}

const FORMAT = /^(\d{1,15})\.([0-2]*)(\.end)?$/;

export function parseWatchOffset(text: string): WatchOffset {
  if (text === '') return { agent: 0, steps: [], ended: false };
  const match = FORMAT.exec(text);
  if (!match)
    throw new MeshError(
      'VALIDATION_FAILED',
      `after: not an offset this API gave, got "${text.slice(0, 64)}"`,
      {
        issues: [{ path: 'after', message: 'must be the offset of an event of this watch' }],
      },
    );
  return { agent: Number(match[1]), steps: [...match[2]].map(Number), ended: match[3] !== undefined };
}

export function formatWatchOffset(offset: WatchOffset): string {
  return `${offset.agent}.${offset.steps.join('')}${offset.ended ? '.end' : ''}`;
}
