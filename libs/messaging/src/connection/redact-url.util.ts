/** `nats://user:secret@host:4222` -> `nats://***@host:4222`: URLs reach logs and errors, credentials must not. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
