/**
 * The Converse checks a translator most easily trips over, with Bedrock's own wording: who
 * speaks first, alternating roles, blank text, tool results that must answer the previous
 * turn's tool uses, and a toolConfig whenever tool blocks are in the conversation.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(message: Json): Json[] {
  return Array.isArray(message.content) ? message.content.filter(isObject) : [];
}

export function validateConverseBody(body: unknown): string | undefined {
  if (!isObject(body)) return 'The request body is not valid JSON.';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'A conversation must contain at least one message.';
  const messages = (body.messages as unknown[]).filter(isObject);
  if (messages[0]?.role !== 'user') {
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  }
  let usesTools = false;
  for (const [index, message] of messages.entries()) {
    if (index > 0 && messages[index - 1]?.role === message.role) {
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    }
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (typeof block.text === 'string' && block.text.trim() === '') {
        return `The text field in the ContentBlock object at messages.${index}.content.${blockIndex} is blank. Add text to the text field, and try again.`;
      }
      if (block.toolUse !== undefined || block.toolResult !== undefined) usesTools = true;
    }
    const previous = messages[index - 1];
    const toolUseIds =
      previous?.role === 'assistant'
        ? blocksOf(previous).flatMap((block) =>
            isObject(block.toolUse) ? [String(block.toolUse.toolUseId)] : [],
          )
        : [];
    const answered = blocksOf(message).flatMap((block) =>
      isObject(block.toolResult) ? [String(block.toolResult.toolUseId)] : [],
    );
    const missing = toolUseIds.filter((id) => !answered.includes(id));
    if (message.role === 'user' && missing.length > 0) {
      return `Expected toolResult blocks at messages.${index}.content for the following Ids: ${missing.join(', ')}`;
    }
    const stray = answered.filter((id) => !toolUseIds.includes(id));
    if (stray.length > 0) {
      return `messages.${index}.content: The toolResult blocks for Ids ${stray.join(', ')} do not answer any toolUse block of the previous turn.`;
    }
  }
  if (usesTools && !isObject(body.toolConfig)) {
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  }
  return undefined;
}
