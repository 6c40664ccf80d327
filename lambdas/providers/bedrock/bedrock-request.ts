import { UpstreamError } from '../upstream-failure.js';
import { formatInstruction, toolInput } from '../anthropic/anthropic-request.js';
import type { ChatMessage, ChatRequest, ContentPart, TextPart, ToolCall, ToolDefinition } from '../chat-types.js';

/**
 * Canonical (OpenAI-shaped) request → Bedrock Converse request body (docs/upstreams.md,
 * "Amazon Bedrock"). Converse is modelled on Anthropic's Messages API, so the deliberate losses
 * are Anthropic's (anthropic-request.ts), with these differences:
 * - system and developer messages become the top-level `system` list, one `{text}` each;
 * - consecutive turns of one role merge and a conversation opening with the assistant gets a
 *   one-character user turn, as Converse, like Anthropic, wants alternating turns from a user's;
 * - images must be bytes: a data: URL is decoded (jpeg, png, gif or webp); an http(s) URL is
 *   refused with a 400 naming the part, since Converse cannot fetch and the gateway fetches no
 *   caller URL on a model's behalf;
 * - `inferenceConfig` carries max_tokens, one of temperature (clamped to 1) and top_p (the
 *   same rule as for Claude, whose Bedrock models refuse both), and the stop sequences;
 * - `tool_choice: "none"` has no Converse form: without tool blocks in the conversation the
 *   tools are left out; with them (Converse then requires their definitions) they are sent and
 *   the choice is left to the model. `parallel_tool_calls` has no Converse field: dropped;
 * - presence/frequency penalties, seed and user have no Converse field: dropped;
 * - tool-call ids are reduced to `[A-Za-z0-9_-]` on both sides, so pairs still match.
 */

const MAX_TEMPERATURE = 1;
const OPENING_USER_TEXT = '.';
const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export type ConverseBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: { text: string }[]; status?: 'success' | 'error' } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseBlock[];
}

export type ConverseToolChoice =
  { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: { toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } } }[];
    toolChoice?: ConverseToolChoice;
  };
}

export function toConverseBody(request: ChatRequest): ConverseRequestBody {
  const body: ConverseRequestBody = { messages: conversation(request.messages) };
  const system = systemBlocks(request);
  if (system.length > 0) body.system = system;
  const inference = inferenceConfig(request);
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  const tools = toolConfig(request, body.messages);
  if (tools) body.toolConfig = tools;
  return body;
}

function systemBlocks(request: ChatRequest): { text: string }[] {
  const texts = request.messages.flatMap((m) =>
    m.role === 'system' || m.role === 'developer' ? [textOf(m.content)] : [],
  );
  const instruction = formatInstruction(request.response_format);
  if (instruction) texts.push(instruction);
  return texts.filter((text) => text !== '').map((text) => ({ text }));
}

function inferenceConfig(request: ChatRequest): NonNullable<ConverseRequestBody['inferenceConfig']> {
  const config: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  if (request.max_tokens !== undefined) config.maxTokens = request.max_tokens;
  if (request.top_p !== undefined && request.top_p < 1) config.topP = request.top_p;
  else if (request.temperature !== undefined) config.temperature = Math.min(request.temperature, MAX_TEMPERATURE);
  const stops =
    request.stop === undefined
      ? []
      : (Array.isArray(request.stop) ? request.stop : [request.stop]).filter((s) => s !== '');
  if (stops.length > 0) config.stopSequences = stops;
  return config;
}

function conversation(messages: readonly ChatMessage[]): ConverseMessage[] {
  const turns: ConverseMessage[] = [];
  messages.forEach((message, index) => {
    const turn = toTurn(message, index);
    if (!turn || turn.content.length === 0) return;
    const previous = turns[turns.length - 1];
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  });
  // Tool results answer the previous turn's calls: first in their turn, as Claude wants them.
  for (const turn of turns)
    if (turn.role === 'user')
      turn.content = [
        ...turn.content.filter((b) => 'toolResult' in b),
        ...turn.content.filter((b) => !('toolResult' in b)),
      ];
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: [{ text: OPENING_USER_TEXT }] });
  return turns;
}

function toTurn(message: ChatMessage, index: number): ConverseMessage | undefined {
  switch (message.role) {
    case 'system':
    case 'developer':
      return undefined;
    case 'user':
      return { role: 'user', content: userBlocks(message.content, index) };
    case 'tool': {
      const text = textOf(message.content);
      return {
        role: 'user',
        content: [{ toolResult: { toolUseId: toolId(message.tool_call_id), content: text === '' ? [] : [{ text }] } }],
      };
    }
    case 'assistant': {
      const content: ConverseBlock[] = textBlocks(message.content ?? '');
      for (const call of message.tool_calls ?? []) content.push(toolUse(call));
      return { role: 'assistant', content };
    }
  }
}

function userBlocks(content: string | ContentPart[], index: number): ConverseBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  return content.flatMap((part, j): ConverseBlock[] =>
    part.type === 'text'
      ? textBlocks(part.text)
      : [imageBlock(part.image_url.url, `messages[${index}].content[${j}].image_url.url`)],
  );
}

/** Converse refuses empty text blocks. */
function textBlocks(content: string | TextPart[]): { text: string }[] {
  const texts = typeof content === 'string' ? [content] : content.map((p) => p.text);
  return texts.filter((text) => text !== '').map((text) => ({ text }));
}

function textOf(content: string | TextPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

function imageBlock(url: string, field: string): ConverseBlock {
  const data = DATA_URL.exec(url);
  if (!data) throw badRequest(`${field}: Bedrock models take images as data: URLs (base64), not links`);
  const format = IMAGE_FORMATS[data[1]!.toLowerCase()];
  if (!format) throw badRequest(`${field}: Bedrock accepts jpeg, png, gif or webp images, not "${data[1]}"`);
  const base64 = data[2]!.toLowerCase().split(';').includes('base64');
  const bytes = base64
    ? data[3]!.replace(/\s+/g, '')
    : Buffer.from(decodeURIComponent(data[3]!), 'utf8').toString('base64');
  return { image: { format, source: { bytes } } };
}

function toolUse(call: ToolCall): ConverseBlock {
  return {
    toolUse: { toolUseId: toolId(call.id), name: call.function.name, input: toolInput(call.function.arguments) },
  };
}

const toolId = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, '_');

function toolConfig(request: ChatRequest, messages: readonly ConverseMessage[]): ConverseRequestBody['toolConfig'] {
  if (!request.tools || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  const toolBlocks = messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
  if (choice === 'none' && !toolBlocks) return undefined;
  const config: NonNullable<ConverseRequestBody['toolConfig']> = { tools: request.tools.map(toTool) };
  if (choice === 'required') config.toolChoice = { any: {} };
  else if (typeof choice === 'object') config.toolChoice = { tool: { name: choice.function.name } };
  else if (choice === 'auto') config.toolChoice = { auto: {} };
  return config;
}

function toTool(tool: ToolDefinition): NonNullable<ConverseRequestBody['toolConfig']>['tools'][number] {
  const spec: NonNullable<ConverseRequestBody['toolConfig']>['tools'][number]['toolSpec'] = {
    name: tool.function.name,
    // Converse wants an object schema; OpenAI allows the parameters to be omitted.
    inputSchema: { json: { ...(tool.function.parameters ?? {}), type: 'object' } },
  };
  if (tool.function.description) spec.description = tool.function.description;
  return { toolSpec: spec };
}

function badRequest(message: string): UpstreamError {
  return new UpstreamError({ kind: 'bad_request', message });
}
