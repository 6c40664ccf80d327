import { samplingOf } from './sampling.js';
import type { ScriptInput, ScriptMessage, ScriptTool, ScriptToolChoice } from './script-types.js';

/**
 * The Gemini simulator's request side: the checks the real generateContent makes (each failure
 * is the description of a 400 `INVALID_ARGUMENT`), and the conversion of a valid request into
 * the shared script's input.
 *
 * Stricter than Google on one point: field names must be camelCase (Google's JSON transcoding
 * also takes snake_case, unconfirmed for every field), so an adapter emitting snake_case is
 * caught here instead of silently working.
 */

export interface WirePart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
}

export interface WireContent {
  role?: 'user' | 'model';
  parts: WirePart[];
}

export interface WireRequest {
  contents: WireContent[];
  systemInstruction?: { role?: string; parts: WirePart[] };
  tools?: {
    functionDeclarations?: {
      name: string;
      description?: string;
      parameters?: Record<string, unknown>;
      parametersJsonSchema?: Record<string, unknown>;
    }[];
  }[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: { maxOutputTokens?: number; stopSequences?: string[]; [key: string]: unknown };
}

const REQUEST_FIELDS = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'safetySettings',
  'generationConfig',
  'cachedContent',
  'serviceTier',
]);

const GENERATION_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'maxOutputTokens',
  'stopSequences',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseLogprobs',
  'logprobs',
  'responseModalities',
  'mediaResolution',
  'speechConfig',
  'imageConfig',
  'thinkingConfig',
  'enableEnhancedCivicAnswers',
]);

/** The part fields of the `data` oneof: exactly one per part. */
const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const;
const PART_EXTRAS = new Set(['thought', 'thoughtSignature', 'videoMetadata', 'mediaResolution', 'partMetadata']);
const MODES = new Set(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']);
const MIME_TYPES = new Set(['text/plain', 'application/json', 'text/x.enum']);
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

type Problem = string | undefined;

/** The first problem with a generateContent body, worded like the API, or undefined. */
export function validateGenerateRequest(body: unknown): Problem {
  if (!isRecord(body)) return 'Invalid JSON payload received. Expected an object.';
  return (
    unknownField(body, REQUEST_FIELDS, '') ??
    validateContents(body['contents']) ??
    validateSystem(body['systemInstruction']) ??
    validateTools(body['tools']) ??
    validateToolConfig(body['toolConfig']) ??
    validateGeneration(body['generationConfig'])
  );
}

function unknownField(object: Record<string, unknown>, known: ReadonlySet<string>, at: string): Problem {
  const unknown = Object.keys(object).find((key) => !known.has(key));
  return unknown === undefined
    ? undefined
    : `Invalid JSON payload received. Unknown name "${unknown}"${at ? ` at '${at}'` : ''}: Cannot find field.`;
}

function validateContents(contents: unknown): Problem {
  if (contents === undefined || (Array.isArray(contents) && contents.length === 0)) {
    return '* GenerateContentRequest.contents: contents is not specified';
  }
  if (!Array.isArray(contents))
    return "Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), expected a list";
  let previous: Record<string, unknown> | undefined;
  for (const [i, content] of contents.entries()) {
    if (!isRecord(content)) return `Invalid value at 'contents[${i}]': expected an object`;
    const role = content['role'];
    if (role !== undefined && role !== 'user' && role !== 'model') return 'Please use a valid role: user, model.';
    const problem =
      unknownField(content, new Set(['role', 'parts']), `contents[${i}]`) ??
      validateParts(content['parts'], `contents[${i}]`);
    if (problem) return problem;
    const parts = content['parts'] as Record<string, unknown>[];
    const calls = parts.filter((p) => p['functionCall'] !== undefined).length;
    const responses = parts.filter((p) => p['functionResponse'] !== undefined).length;
    const previousCalls =
      previous?.['role'] === 'model'
        ? (previous['parts'] as Record<string, unknown>[]).filter((p) => p['functionCall'] !== undefined).length
        : 0;
    const afterUser = previous !== undefined && previous['role'] !== 'model';
    if (calls > 0 && (role !== 'model' || !afterUser)) {
      return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
    }
    if (responses > 0 && previousCalls !== responses) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    previous = content;
  }
  return undefined;
}

function validateParts(parts: unknown, at: string): Problem {
  if (!Array.isArray(parts) || parts.length === 0)
    return `* GenerateContentRequest.${at}.parts: contents.parts must not be empty.`;
  for (const [j, part] of parts.entries()) {
    const where = `${at}.parts[${j}]`;
    if (!isRecord(part)) return `Invalid value at '${where}': expected an object`;
    const data = DATA_FIELDS.filter((field) => part[field] !== undefined);
    if (data.length !== 1)
      return `* GenerateContentRequest.${where}.data: required oneof field 'data' must have one initialized field`;
    const extra = Object.keys(part).find(
      (key) => !(DATA_FIELDS as readonly string[]).includes(key) && !PART_EXTRAS.has(key),
    );
    if (extra) return `Invalid JSON payload received. Unknown name "${extra}" at '${where}': Cannot find field.`;
    const problem = validatePartData(data[0]!, part[data[0]!], where);
    if (problem) return problem;
  }
  return undefined;
}

function validatePartData(field: string, value: unknown, where: string): Problem {
  switch (field) {
    case 'text':
      return typeof value === 'string' ? undefined : `Invalid value at '${where}.text' (TYPE_STRING)`;
    case 'inlineData':
      if (!isRecord(value) || typeof value['mimeType'] !== 'string' || value['mimeType'] === '')
        return `* GenerateContentRequest.${where}.inline_data.mime_type: mime_type is not specified`;
      return typeof value['data'] === 'string' && BASE64.test(value['data'])
        ? undefined
        : `Invalid value at '${where}.inline_data.data' (TYPE_BYTES), Base64 decoding failed`;
    case 'fileData':
      return isRecord(value) && typeof value['fileUri'] === 'string' && value['fileUri'] !== ''
        ? undefined
        : `* GenerateContentRequest.${where}.file_data.file_uri: file_uri is not specified`;
    case 'functionCall':
      if (!isRecord(value) || typeof value['name'] !== 'string' || value['name'] === '')
        return `* GenerateContentRequest.${where}.function_call.name: Name cannot be empty.`;
      return value['args'] === undefined || isRecord(value['args'])
        ? undefined
        : `Invalid value at '${where}.function_call.args' (type.googleapis.com/google.protobuf.Struct)`;
    case 'functionResponse':
      if (!isRecord(value) || typeof value['name'] !== 'string' || value['name'] === '')
        return `* GenerateContentRequest.${where}.function_response.name: Name cannot be empty.`;
      return isRecord(value['response'])
        ? undefined
        : `Invalid value at '${where}.function_response.response' (type.googleapis.com/google.protobuf.Struct)`;
    default:
      return undefined;
  }
}

function validateSystem(system: unknown): Problem {
  if (system === undefined) return undefined;
  if (!isRecord(system))
    return "Invalid value at 'system_instruction' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content)";
  return (
    unknownField(system, new Set(['role', 'parts']), 'system_instruction') ??
    validateParts(system['parts'], 'system_instruction')
  );
}

function validateTools(tools: unknown): Problem {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return "Invalid value at 'tools' (type.googleapis.com/google.ai.generativelanguage.v1beta.Tool), expected a list";
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool)) return `Invalid value at 'tools[${i}]': expected an object`;
    const declarations = tool['functionDeclarations'];
    if (declarations === undefined) continue;
    if (!Array.isArray(declarations)) return `Invalid value at 'tools[${i}].function_declarations', expected a list`;
    for (const [j, fn] of declarations.entries()) {
      const where = `tools[${i}].function_declarations[${j}]`;
      if (!isRecord(fn) || typeof fn['name'] !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(fn['name'])) {
        return `* GenerateContentRequest.${where}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`;
      }
      const problem = unknownField(
        fn,
        new Set([
          'name',
          'description',
          'parameters',
          'parametersJsonSchema',
          'response',
          'responseJsonSchema',
          'behavior',
        ]),
        where,
      );
      if (problem) return problem;
      const parameters = fn['parameters'];
      if (parameters !== undefined && !isRecord(parameters))
        return `Invalid value at '${where}.parameters' (type.googleapis.com/google.ai.generativelanguage.v1beta.Schema)`;
      if (isRecord(parameters) && String(parameters['type']).toUpperCase() === 'OBJECT' && !hasProperties(parameters)) {
        return `* GenerateContentRequest.${where}.parameters.properties: should be non-empty for OBJECT type`;
      }
    }
  }
  return undefined;
}

function validateToolConfig(config: unknown): Problem {
  if (config === undefined) return undefined;
  const calling = isRecord(config) ? config['functionCallingConfig'] : undefined;
  if (!isRecord(config) || (calling !== undefined && !isRecord(calling)))
    return "Invalid value at 'tool_config' (type.googleapis.com/google.ai.generativelanguage.v1beta.ToolConfig)";
  if (!isRecord(calling)) return undefined;
  const mode = calling['mode'] ?? 'AUTO';
  if (typeof mode !== 'string' || !MODES.has(mode)) {
    return `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(mode)}"`;
  }
  const allowed = calling['allowedFunctionNames'];
  if (allowed !== undefined && mode !== 'ANY' && mode !== 'VALIDATED') {
    return '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names should only be set when the Function calling mode is ANY or VALIDATED.';
  }
  return undefined;
}

function validateGeneration(config: unknown): Problem {
  if (config === undefined) return undefined;
  if (!isRecord(config))
    return "Invalid value at 'generation_config' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig)";
  const problem = unknownField(config, GENERATION_FIELDS, 'generation_config');
  if (problem) return problem;
  const max = config['maxOutputTokens'];
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1))
    return "Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32)";
  const stops = config['stopSequences'];
  if (stops !== undefined && (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string')))
    return "Invalid value at 'generation_config.stop_sequences' (TYPE_STRING)";
  if (Array.isArray(stops) && stops.length > 5)
    return '* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences are allowed';
  const mime = config['responseMimeType'];
  if (mime !== undefined && (typeof mime !== 'string' || !MIME_TYPES.has(mime))) {
    return `* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are \`text/plain\`, \`application/json\`, \`text/x.enum\`.`;
  }
  if (
    (config['responseSchema'] !== undefined || config['responseJsonSchema'] !== undefined) &&
    mime !== 'application/json' &&
    mime !== 'text/x.enum'
  ) {
    return '* GenerateContentRequest.generation_config.response_mime_type: When using response_schema, response_mime_type must be application/json or text/x.enum.';
  }
  return undefined;
}

/** A valid request → the script's input: function responses become tool messages, images count. */
export function toScriptInput(model: string, request: WireRequest): ScriptInput {
  const messages: ScriptMessage[] = [];
  const system = (request.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n');
  if (system !== '') messages.push({ role: 'system', text: system, images: 0 });
  for (const content of request.contents) {
    if (content.role === 'model') {
      const said = content.parts.map((p) =>
        p.functionCall ? JSON.stringify(p.functionCall) : p.thought ? '' : (p.text ?? ''),
      );
      messages.push({ role: 'assistant', text: said.join(''), images: 0 });
      continue;
    }
    let text = '';
    let images = 0;
    const flush = () => {
      if (text !== '' || images > 0) messages.push({ role: 'user', text, images });
      text = '';
      images = 0;
    };
    for (const part of content.parts) {
      if (part.functionResponse) {
        flush();
        messages.push({
          role: 'tool',
          text: responseText(part.functionResponse.response),
          images: 0,
          toolName: part.functionResponse.name,
        });
      } else if (part.inlineData || part.fileData) images++;
      else if (typeof part.text === 'string') {
        // Each text part after the first is a message of its own: the gateway merges consecutive
        // user messages into one turn, and the script answers the last, as through OpenAI's format.
        if (text !== '') flush();
        text = part.text;
      }
    }
    flush();
  }
  const { tools, toolChoice } = toolsOf(request);
  const config = request.generationConfig;
  return {
    model,
    messages,
    tools,
    toolChoice,
    ...(config?.maxOutputTokens !== undefined ? { maxTokens: config.maxOutputTokens } : {}),
    ...(config?.stopSequences !== undefined ? { stop: config.stopSequences } : {}),
    ...samplingOf(config?.['temperature'], config?.['seed']),
  };
}

/** `{"content": "…"}` reads as its text, as the gateway sends plain tool output. */
function responseText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response['content'] === 'string') return response['content'];
  return JSON.stringify(response);
}

/**
 * toolConfig → the script's tool choice: ANY forces a call (restricted to allowedFunctionNames;
 * a single allowed name is a named choice), NONE forbids one, AUTO and VALIDATED let it decide.
 */
function toolsOf(request: WireRequest): { tools: ScriptTool[]; toolChoice: ScriptToolChoice } {
  const declared = (request.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
  const all = declared.map((fn): ScriptTool => ({
    name: fn.name,
    parameters: lowerTypes(fn.parameters ?? fn.parametersJsonSchema) as Record<string, unknown> | undefined,
  }));
  const config = request.toolConfig?.functionCallingConfig;
  const mode = config?.mode ?? 'AUTO';
  if (mode === 'NONE') return { tools: all, toolChoice: 'none' };
  if (mode !== 'ANY') return { tools: all, toolChoice: 'auto' };
  const allowed = config?.allowedFunctionNames;
  const tools = allowed && allowed.length > 0 ? all.filter((tool) => allowed.includes(tool.name)) : all;
  return { tools, toolChoice: allowed?.length === 1 ? { name: allowed[0]! } : 'required' };
}

/** Gemini's `STRING` / `INTEGER` type names → JSON Schema's, which the script reads. */
function lowerTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (!isRecord(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowerTypes(value),
    ]),
  );
}

function hasProperties(schema: Record<string, unknown>): boolean {
  const properties = schema['properties'];
  return isRecord(properties) && Object.keys(properties).length > 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
