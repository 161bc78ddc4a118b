import type { DroppedPrefix } from './memory-write.plan.js';

/**
 * Sentences the agent runtime writes to the flow log about a save. They name sizes and counts,
 * never message contents.
 */
export const saveNotices = {
  trimmed: (dropped: DroppedPrefix, limitBytes: number) =>
    `memory over the ${limitBytes}-byte limit: the ${dropped.exchanges} oldest exchange(s) ` +
    `(${dropped.messages} messages, ${dropped.bytes} bytes) were left out of the saved memory`,
  fellBack: (reason: string) =>
    `object storage failed (${reason}); the memory was saved to the database instead`,
  compactionRequired: (bytes: number, limitBytes: number) =>
    `memory is ${bytes} bytes, over the ${limitBytes}-byte limit of the store: compact it once and save again`,
  skipped: (limitBytes: number, currentVersion: number | null) =>
    `memory not saved: not even its last exchange starting with a user message fits the ${limitBytes}-byte limit; ` +
    (currentVersion === null
      ? 'the next run starts without memory'
      : `the next run loads the previous memory (version ${currentVersion})`),
  refused: (bytes: number, limitBytes: number, reason: string) =>
    `memory save failed: object storage failed (${reason}) and the ${bytes}-byte compaction memory is over the ` +
    `database's ${limitBytes}-byte limit; the existing memory is unchanged`,
};
