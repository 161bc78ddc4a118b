/**
 * A realistic agent history of `count` messages: exchanges of a user question, an assistant tool
 * call (with reasoning), its result and an answer, in the provider-neutral message model.
 */
export function agentHistory(count, tag = 'h') {
  const messages = [];
  for (let i = 0; messages.length < count; i++) {
    const exchange = [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `${tag}${i}: what is the status of invoice ${1000 + i} for the ACME account?`,
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'reasoning', text: 'I should look the invoice up.', signature: `sig-${i}` }],
        toolCalls: [
          { id: `call_${i}`, name: 'get_invoice', arguments: `{"invoice":${1000 + i},"account":"acme"}` },
        ],
      },
      {
        role: 'tool',
        toolCallId: `call_${i}`,
        name: 'get_invoice',
        content: [
          {
            type: 'text',
            text: `{"invoice":${1000 + i},"status":"paid","amount":${(i * 37) % 5000},"currency":"EUR"}`,
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Invoice ${1000 + i} was paid in full; nothing is outstanding on it.` },
        ],
      },
    ];
    messages.push(...exchange.slice(0, count - messages.length));
  }
  return messages;
}
