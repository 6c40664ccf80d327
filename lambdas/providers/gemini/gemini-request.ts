import { UpstreamError } from '../upstream-failure.js';
import { convertSchema, isEmptyObjectSchema } from './gemini-schema.js';
import type {
  FunctionCallingMode,
  FunctionDeclaration,
  GeminiContent,
  GeminiPart,
  GenerateContentRequest,
  GenerationConfig,
} from './gemini-wire.js';
import type { ChatMessage, ChatRequest, ContentPart, TextPart, ToolCall, ToolChoice } from '../chat-types.js';
import { parseJsonObject } from '../bounded-answer.js';

/**
 * Canonical (OpenAI-shaped) request → Gemini `GenerateContentRequest` (docs/upstreams.md §3.3).
 *
 * Choices where the formats do not line up:
 * - system and developer messages, wherever they appear, become `systemInstruction.parts`
 *   in order (Gemini has one system instruction, outside `contents`);
 * - consecutive turns of the same Gemini role are merged (tool results and a following user
 *   message share one `user` turn); turns left without parts are dropped, since Gemini
 *   rejects empty `parts`;
 * - tool-call `arguments` are parsed into the object `args` Gemini requires; "" is `{}`, and
 *   text that is not a JSON object is kept as `{"arguments": "<text>"}` rather than lost or
 *   refused (such history usually comes from a truncated call and the model should still see it);
 * - a tool message's function name is recovered from the earlier assistant tool call with its
 *   `tool_call_id` (Gemini matches results by name); an orphan tool message is the caller's
 *   error (`bad_request`), as it is for OpenAI. Its `response` is the content parsed as a JSON
 *   object, else `{"content": "<text>"}`;
 * - call ids are not sent back: they may be ids the adapter synthesised, and Gemini matches
 *   calls and results by name and order;
 * - `data:` image URLs become `inlineData`; other URLs become `fileData` with the MIME type
 *   guessed from the path's extension (`image/jpeg` when unknown); `detail` has no equivalent;
 * - `parallel_tool_calls` and `user` have no equivalent and are not sent.
 */
export function toGenerateContentRequest(request: ChatRequest): GenerateContentRequest {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const append = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(message.content));
        break;
      case 'user':
        append('user', userParts(message.content));
        break;
      case 'assistant':
        for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
        append('model', [...textParts(message.content ?? ''), ...(message.tool_calls ?? []).map(functionCallPart)]);
        break;
      case 'tool':
        append('user', [functionResponsePart(message, callNames)]);
        break;
    }
  }

  const body: GenerateContentRequest = { contents };
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (request.tools && request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map((tool) => declaration(tool.function)) }];
    if (request.tool_choice !== undefined)
      body.toolConfig = { functionCallingConfig: callingConfig(request.tool_choice) };
  }
  const generationConfig = generationConfigOf(request);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function textParts(content: string | TextPart[]): GeminiPart[] {
  const texts =
    typeof content === 'string' ? [content] : content.filter((part) => part.type === 'text').map((part) => part.text);
  return texts.filter((text) => text !== '').map((text) => ({ text }));
}

function userParts(content: string | ContentPart[]): GeminiPart[] {
  if (typeof content === 'string') return textParts(content);
  const parts: GeminiPart[] = [];
  for (const part of content) {
    if (part.type === 'text' && part.text !== '') parts.push({ text: part.text });
    else if (part.type === 'image_url') parts.push(imagePart(part.image_url.url));
  }
  return parts;
}

function functionCallPart(call: ToolCall): GeminiPart {
  return { functionCall: { name: call.function.name, args: argumentsObject(call.function.arguments) } };
}

function argumentsObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  return parseJsonObject(text) ?? { arguments: text };
}

function functionResponsePart(
  message: Extract<ChatMessage, { role: 'tool' }>,
  callNames: Map<string, string>,
): GeminiPart {
  const name = callNames.get(message.tool_call_id);
  if (name === undefined) {
    throw new UpstreamError({
      kind: 'bad_request',
      message: `tool message ${JSON.stringify(message.tool_call_id)} answers no earlier assistant tool call`,
    });
  }
  const text =
    typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('');
  return { functionResponse: { name, response: parseJsonObject(text) ?? { content: text } } };
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

function imagePart(url: string): GeminiPart {
  const data = DATA_URL.exec(url);
  if (!data) return { fileData: { mimeType: mimeTypeOfPath(url), fileUri: url } };
  const [, mimeType, params, payload] = data;
  const base64 = params.split(';').includes('base64')
    ? payload
    : Buffer.from(percentDecoded(payload), 'utf8').toString('base64');
  return { inlineData: { mimeType: mimeType || DEFAULT_IMAGE_TYPE, data: base64 } };
}

/** A malformed escape is kept as written rather than failing the whole request. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const DEFAULT_IMAGE_TYPE = 'image/jpeg';

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

function mimeTypeOfPath(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not a URL the platform parses: guess from the text as given.
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && MIME_BY_EXTENSION[extension]) || DEFAULT_IMAGE_TYPE;
}

function declaration(fn: {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}): FunctionDeclaration {
  const out: FunctionDeclaration = { name: fn.name };
  if (fn.description !== undefined) out.description = fn.description;
  if (fn.parameters && !isEmptyObjectSchema(fn.parameters)) {
    const converted = convertSchema(fn.parameters);
    if (converted.kind === 'subset') out.parameters = converted.schema;
    else out.parametersJsonSchema = converted.schema;
  }
  return out;
}

const MODES: Readonly<Record<Exclude<ToolChoice, object>, FunctionCallingMode>> = {
  auto: 'AUTO',
  none: 'NONE',
  required: 'ANY',
};

function callingConfig(choice: ToolChoice): { mode: FunctionCallingMode; allowedFunctionNames?: string[] } {
  if (typeof choice === 'string') return { mode: MODES[choice] };
  return { mode: 'ANY', allowedFunctionNames: [choice.function.name] };
}

/** Sampling fields that only change name. */
const RENAMED: readonly (readonly [keyof ChatRequest, keyof GenerationConfig])[] = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['max_tokens', 'maxOutputTokens'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
  ['seed', 'seed'],
];

function generationConfigOf(request: ChatRequest): GenerationConfig {
  const config: Record<string, unknown> = {};
  for (const [from, to] of RENAMED) if (request[from] !== undefined) config[to] = request[from];
  if (request.stop !== undefined) {
    const stops = (typeof request.stop === 'string' ? [request.stop] : request.stop).filter((stop) => stop !== '');
    if (stops.length > 0) config['stopSequences'] = stops;
  }
  const format = request.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') config['responseMimeType'] = 'application/json';
  const schema = format?.type === 'json_schema' ? format.json_schema.schema : undefined;
  if (schema && !isEmptyObjectSchema(schema)) {
    const converted = convertSchema(schema);
    config[converted.kind === 'subset' ? 'responseSchema' : 'responseJsonSchema'] = converted.schema;
  }
  return config as GenerationConfig;
}
