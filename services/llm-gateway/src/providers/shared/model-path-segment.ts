import { providerCallError } from '../provider-call.error.js';

/**
 * A model name placed in a URL path (Vertex, Gemini, Bedrock): it must stay one segment, so a
 * name cannot steer the call to another endpoint of the same host with the same credentials.
 */
export function modelPathSegment(model: string): string {
  // Control characters included: \s does not cover them all.
  if (
    /[/?#\\]|^\.\.?$/.test(model) ||
    /\s/.test(model) ||
    [...model].some((char) => char.charCodeAt(0) < 0x20)
  ) {
    throw providerCallError('bad_request_user', `"${model.slice(0, 80)}" is not a model name`);
  }
  return model;
}
