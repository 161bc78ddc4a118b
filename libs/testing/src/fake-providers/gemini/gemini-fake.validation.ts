/**
 * Checks the real Gemini API makes that a translator most easily gets wrong, answered with the
 * API's own wording: unknown fields (its proto parser refuses them), roles, function-response
 * turns that do not answer the call turn before them, and Gemini 3's thought signatures.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TOP_LEVEL = new Set([
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
  'labels',
]);
const GENERATION_CONFIG = new Set([
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'thinkingConfig',
  'responseModalities',
  'mediaResolution',
]);
const PART_DATA = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
];
const PART_FIELDS = new Set([...PART_DATA, 'thought', 'thoughtSignature', 'videoMetadata']);
/** The OpenAPI subset `Schema` takes (responseSchema, function parameters). */
const SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

function unknownName(name: string, at: string): string {
  return `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`;
}

function checkSchema(schema: unknown, at: string): string | undefined {
  if (!isObject(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_FIELDS.has(key)) return unknownName(key, at);
    if (key === 'properties' && isObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        const problem = checkSchema(property, `${at}.properties[${name}].value`);
        if (problem) return problem;
      }
    }
    if (key === 'items') {
      const problem = checkSchema(value, `${at}.items`);
      if (problem) return problem;
    }
    if (key === 'anyOf' && Array.isArray(value)) {
      for (const [index, option] of value.entries()) {
        const problem = checkSchema(option, `${at}.any_of[${index}]`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

function partsOf(content: Json): Json[] {
  return Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
}

export function validateGeminiBody(
  body: unknown,
  options: { requireThoughtSignatures: boolean },
): string | undefined {
  if (!isObject(body)) return 'Invalid JSON payload received.';
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return unknownName(key, '');
  if (isObject(body.generationConfig)) {
    for (const key of Object.keys(body.generationConfig))
      if (!GENERATION_CONFIG.has(key)) return unknownName(key, 'generation_config');
    const problem = checkSchema(body.generationConfig.responseSchema, 'generation_config.response_schema');
    if (problem) return problem;
    if (
      body.generationConfig.responseSchema !== undefined &&
      body.generationConfig.responseMimeType !== 'application/json'
    ) {
      return 'response_mime_type: responseSchema requires responseMimeType "application/json".';
    }
  }
  if (Array.isArray(body.tools)) {
    for (const [toolIndex, tool] of body.tools.entries()) {
      if (!isObject(tool) || !Array.isArray(tool.functionDeclarations)) continue;
      for (const [index, declaration] of tool.functionDeclarations.entries()) {
        if (!isObject(declaration)) continue;
        if (
          typeof declaration.name !== 'string' ||
          !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(declaration.name)
        ) {
          return `* GenerateContentRequest.tools[${toolIndex}].function_declarations[${index}].name: Invalid function name.`;
        }
        const problem = checkSchema(
          declaration.parameters,
          `tools[${toolIndex}].function_declarations[${index}].parameters`,
        );
        if (problem) return problem;
      }
    }
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  const contents = body.contents as unknown[];
  for (const [index, content] of contents.entries()) {
    if (!isObject(content)) return `* GenerateContentRequest.contents[${index}]: must be an object`;
    if (content.role !== 'user' && content.role !== 'model') {
      return `Please use a valid role: user, model. (contents[${index}].role = ${JSON.stringify(content.role)})`;
    }
    const parts = partsOf(content);
    if (parts.length === 0)
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    for (const part of parts) {
      for (const key of Object.keys(part))
        if (!PART_FIELDS.has(key)) return unknownName(key, `contents[${index}].parts[0]`);
      if (PART_DATA.filter((field) => part[field] !== undefined).length !== 1) {
        return `* GenerateContentRequest.contents[${index}].parts: a part must hold exactly one kind of data`;
      }
    }
  }
  return checkFunctionTurns(contents.filter(isObject), options);
}

function checkFunctionTurns(
  contents: Json[],
  options: { requireThoughtSignatures: boolean },
): string | undefined {
  for (const [index, content] of contents.entries()) {
    const parts = partsOf(content);
    const responses = parts.filter((part) => part.functionResponse !== undefined);
    if (responses.length > 0) {
      const previous = contents[index - 1];
      const calls =
        previous?.role === 'model' ? partsOf(previous).filter((part) => part.functionCall !== undefined) : [];
      if (calls.length === 0) {
        return 'Please ensure that function response turn comes immediately after a function call turn.';
      }
      if (calls.length !== responses.length) {
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
      }
      const names = calls.map((part) => (part.functionCall as Json).name).sort();
      const answered = responses
        .map((part) => (isObject(part.functionResponse) ? part.functionResponse.name : undefined))
        .sort();
      if (JSON.stringify(names) !== JSON.stringify(answered)) {
        return 'Please ensure that function response names match the function call names of the function call turn.';
      }
    }
    if (options.requireThoughtSignatures && content.role === 'model') {
      const firstCall = parts.findIndex((part) => part.functionCall !== undefined);
      const call = parts[firstCall];
      if (call && typeof call.thoughtSignature !== 'string') {
        const name = String((call.functionCall as Json).name);
        return (
          'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, ' +
          `and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , ` +
          `position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`
        );
      }
    }
  }
  return undefined;
}
