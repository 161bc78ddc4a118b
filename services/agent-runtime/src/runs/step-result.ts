/** A step's result travels in one NATS message: past this, its execution record is left out. */
export const MAX_RESULT_BYTES = 512 * 1024;

/** The result as is, or without `messages` (and saying so) when it would pass MAX_RESULT_BYTES. */
export function fitted<T extends { messages: unknown[] }>(
  result: T,
): T | (Omit<T, 'messages'> & { messages_omitted: string }) {
  if (Buffer.byteLength(JSON.stringify(result)) <= MAX_RESULT_BYTES) return result;
  const { messages, ...rest } = result;
  return {
    ...rest,
    messages_omitted: `the ${messages.length} messages of the run are larger than ${MAX_RESULT_BYTES} bytes`,
  };
}
