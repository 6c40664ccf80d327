import { UpstreamError } from '../upstream-failure.js';
import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  ResponseFormat,
  TextPart,
  ToolCall,
  ToolDefinition,
} from '../chat-types.js';

/**
 * Canonical (OpenAI-shaped) request → Anthropic Messages request body.
 *
 * Choices where the two formats do not line up (each is a deliberate, documented loss):
 * - system and developer messages, wherever they sit, become the top-level `system` string,
 *   joined in order with blank lines (Anthropic has no system role inside `messages`);
 * - consecutive turns of one role are merged, since Anthropic requires alternation; a
 *   conversation that opens with an assistant turn gets a one-character user turn (`.`) first;
 * - `tool` messages become `tool_result` blocks at the head of the next user turn (consecutive
 *   results merge into that one turn, as Anthropic requires);
 * - assistant tool-call arguments are a JSON string in OpenAI but an object in Anthropic:
 *   a JSON object is sent as is, "" as `{}`, and anything else (unparsable, or JSON that is not
 *   an object) as `{"_raw": "<the string>"}` so the model still sees what it wrote;
 * - temperature: OpenAI's range is 0..2, Anthropic's 0..1. Values are clamped to 1 rather than
 *   halved, so the common 0..1 settings keep their meaning;
 * - one of temperature and top_p, as recent Claude models reject requests that set both: top_p
 *   when it is below 1, else temperature. The gateway always sends a temperature (0.7 when the
 *   caller gives none), so temperature winning would leave top_p no effect on Claude at all;
 *   a top_p of 1 (some SDKs send it by default) restricts nothing, and then temperature is sent;
 * - `presence_penalty`, `frequency_penalty` and `seed` have no Anthropic equivalent: dropped;
 * - `response_format` has no native field: an instruction (with the schema) is appended to
 *   the system prompt;
 * - `tool_choice: "none"` is sent as `{type:"none"}` with the tools kept, because earlier
 *   turns may hold tool_use blocks that need their definitions;
 * - `user` becomes `metadata.user_id`;
 * - tool-call ids are reduced to Anthropic's `[A-Za-z0-9_-]` alphabet, the same way on the
 *   tool_use and the tool_result side, so pairs still match.
 */

export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; OpenAI clients usually omit it. */
export const DEFAULT_MAX_TOKENS = 4096;
const MAX_TEMPERATURE = 1;
/** Opens a conversation whose first turn is the assistant's (Anthropic wants a user turn first). */
const OPENING_USER_TEXT = '.';
const IMAGE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/png': 'image/png',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
};

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string;
}
export type AnthropicBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
}

export function toAnthropicBody(request: ChatRequest, model: string, stream: boolean): AnthropicRequestBody {
  const system = systemPrompt(request);
  const body: AnthropicRequestBody = {
    model,
    max_tokens: request.max_tokens ?? DEFAULT_MAX_TOKENS,
    messages: conversation(request.messages),
  };
  if (system) body.system = system;
  if (stream) body.stream = true;
  if (request.top_p !== undefined && request.top_p < 1) body.top_p = request.top_p;
  else if (request.temperature !== undefined) body.temperature = Math.min(request.temperature, MAX_TEMPERATURE);
  const stops =
    request.stop === undefined
      ? []
      : (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s !== '');
  if (stops.length > 0) body.stop_sequences = stops;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map(toTool);
    const choice = toolChoice(request);
    if (choice) body.tool_choice = choice;
  }
  if (request.user) body.metadata = { user_id: request.user };
  return body;
}

function systemPrompt(request: ChatRequest): string {
  const parts = request.messages.flatMap((m) =>
    m.role === 'system' || m.role === 'developer' ? [textOf(m.content)] : [],
  );
  const instruction = formatInstruction(request.response_format);
  if (instruction) parts.push(instruction);
  return parts.filter((p) => p !== '').join('\n\n');
}

export function formatInstruction(format: ResponseFormat | undefined): string | undefined {
  if (format?.type === 'json_object')
    return 'Respond with a single valid JSON object only, without code fences or commentary.';
  if (format?.type !== 'json_schema') return undefined;
  const { name, description, schema } = format.json_schema;
  return [
    `Respond with a single JSON value only, without code fences or commentary, that conforms to the JSON schema "${name}"` +
      (description ? ` (${description})` : '') +
      ':',
    JSON.stringify(schema ?? {}),
  ].join('\n');
}

/** The user/assistant turns: translated one by one, then merged so roles alternate. */
function conversation(messages: readonly ChatMessage[]): AnthropicMessage[] {
  const turns: AnthropicMessage[] = [];
  for (const message of messages) {
    const turn = toTurn(message);
    if (!turn || turn.content.length === 0) continue;
    const previous = turns[turns.length - 1];
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  }
  for (const turn of turns) if (turn.role === 'user') turn.content = toolResultsFirst(turn.content);
  if (turns[0]?.role === 'assistant')
    turns.unshift({ role: 'user', content: [{ type: 'text', text: OPENING_USER_TEXT }] });
  return turns;
}

function toTurn(message: ChatMessage): AnthropicMessage | undefined {
  switch (message.role) {
    case 'system':
    case 'developer':
      return undefined;
    case 'user':
      return { role: 'user', content: userBlocks(message.content) };
    case 'tool': {
      const text = textOf(message.content);
      const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: toolId(message.tool_call_id) };
      if (text !== '') block.content = text;
      return { role: 'user', content: [block] };
    }
    case 'assistant': {
      const content: AnthropicBlock[] = textBlocks(message.content ?? '');
      for (const call of message.tool_calls ?? []) content.push(toolUse(call));
      return { role: 'assistant', content };
    }
  }
}

/** Anthropic wants a turn's tool_result blocks before anything else in it. */
function toolResultsFirst(blocks: AnthropicBlock[]): AnthropicBlock[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

function userBlocks(content: string | ContentPart[]): AnthropicBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  return content.flatMap((part): AnthropicBlock[] =>
    part.type === 'text' ? textBlocks(part.text) : [imageBlock(part.image_url.url)],
  );
}

/** Anthropic rejects empty text blocks. */
function textBlocks(content: string | TextPart[]): AnthropicTextBlock[] {
  const texts = typeof content === 'string' ? [content] : content.map((p) => p.text);
  return texts.filter((text) => text !== '').map((text) => ({ type: 'text', text }));
}

function textOf(content: string | TextPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

function imageBlock(url: string): AnthropicImageBlock {
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = IMAGE_MEDIA_TYPES[data[1]!.toLowerCase()];
    if (!mediaType) throw badRequest(`anthropic accepts jpeg, png, gif or webp images, not "${data[1]}"`);
    const base64 = data[2]!.toLowerCase().split(';').includes('base64');
    const payload = base64
      ? data[3]!.replace(/\s+/g, '')
      : Buffer.from(decodeURIComponent(data[3]!), 'utf8').toString('base64');
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: payload } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw badRequest('image_url must be an http(s) or data: URL');
}

function toolUse(call: ToolCall): AnthropicToolUseBlock {
  return { type: 'tool_use', id: toolId(call.id), name: call.function.name, input: toolInput(call.function.arguments) };
}

export function toolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Kept verbatim below: the model wrote it, and a later turn may refer to it.
  }
  return { _raw: args };
}

const toolId = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, '_');

function toTool(tool: ToolDefinition): NonNullable<AnthropicRequestBody['tools']>[number] {
  const schema = tool.function.parameters ?? {};
  const out: NonNullable<AnthropicRequestBody['tools']>[number] = {
    name: tool.function.name,
    // Anthropic requires an object schema; OpenAI allows the parameters to be omitted.
    input_schema: { ...schema, type: 'object' },
  };
  if (tool.function.description) out.description = tool.function.description;
  return out;
}

function toolChoice(request: ChatRequest): AnthropicToolChoice | undefined {
  const choice = request.tool_choice;
  if (choice === 'none') return { type: 'none' };
  const serial = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'required') return { type: 'any', ...serial };
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...serial };
  if (choice === 'auto' || request.parallel_tool_calls === false) return { type: 'auto', ...serial };
  return undefined;
}

function badRequest(message: string): UpstreamError {
  return new UpstreamError({ kind: 'bad_request', message });
}
