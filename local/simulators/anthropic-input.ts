import { samplingOf } from './sampling.js';
import type { ScriptInput, ScriptMessage, ScriptToolChoice } from './script-types.js';

/**
 * The Anthropic simulator's request side: the checks the real Messages API makes (each
 * failure is the message of a 400 `invalid_request_error`), and the conversion of a valid
 * request into the shared script's input.
 */

export interface WireBlock {
  type: string;
  text?: unknown;
  source?: { type?: unknown; media_type?: unknown; data?: unknown; url?: unknown };
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
}

export interface WireMessage {
  role: 'user' | 'assistant';
  content: string | WireBlock[];
}

export interface WireRequest {
  model: string;
  max_tokens: number;
  messages: WireMessage[];
  system?: string | { type: 'text'; text: string }[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: 'auto' | 'any' | 'none' } | { type: 'tool'; name: string };
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive' };
}

/** Top-level fields the API knows; anything else is rejected ("Extra inputs are not permitted"). */
const KNOWN_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'service_tier',
  'container',
  'inference_geo',
  'output_config',
  'cache_control',
  'mcp_servers',
  'context_management',
]);
const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const BLOCK_TYPES: Record<WireMessage['role'], ReadonlySet<string>> = {
  user: new Set(['text', 'image', 'document', 'tool_result', 'search_result']),
  assistant: new Set(['text', 'tool_use', 'thinking', 'redacted_thinking', 'server_tool_use']),
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first problem with the request, worded like the API's own 400 messages; undefined when valid. */
export function validateMessagesRequest(body: unknown): string | undefined {
  if (!isObject(body)) return 'Request body must be a JSON object';
  for (const field of Object.keys(body))
    if (!KNOWN_FIELDS.has(field)) return `${field}: Extra inputs are not permitted`;
  if (typeof body['model'] !== 'string' || body['model'] === '') return 'model: Field required';
  const maxTokens = body['max_tokens'];
  if (maxTokens === undefined) return 'max_tokens: Field required';
  if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)
    return 'max_tokens: Input should be a positive integer';
  const temperature = body['temperature'];
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) {
    return 'temperature: Input should be less than or equal to 1';
  }
  const stops = body['stop_sequences'];
  if (stops !== undefined && (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string')))
    return 'stop_sequences: Input should be a valid list of strings';
  return (
    validateSystem(body['system']) ??
    validateTools(body) ??
    validateThinking(body) ??
    validateMessages(body['messages'])
  );
}

function validateSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  if (
    Array.isArray(system) &&
    system.every((b) => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string')
  )
    return undefined;
  return 'system: Input should be a valid string or a list of text blocks';
}

function validateTools(body: Record<string, unknown>): string | undefined {
  const tools = body['tools'];
  const names = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool) || typeof tool['name'] !== 'string' || tool['name'] === '')
        return `tools.${i}.name: Field required`;
      const schema = tool['input_schema'];
      if (!isObject(schema)) return `tools.${i}.input_schema: Field required`;
      if (schema['type'] !== 'object') return `tools.${i}.input_schema.type: Input should be 'object'`;
      names.add(tool['name']);
    }
  }
  const choice = body['tool_choice'];
  if (choice === undefined) return undefined;
  if (!isObject(choice) || !['auto', 'any', 'tool', 'none'].includes(choice['type'] as string))
    return 'tool_choice: Input tag does not match any of the expected tags';
  if (choice['type'] === 'tool' && !names.has(choice['name'] as string))
    return `tool_choice.name: Tool '${String(choice['name'])}' not found in tools`;
  if (choice['type'] !== 'none' && names.size === 0) return 'tool_choice may only be specified while providing tools.';
  return undefined;
}

function validateThinking(body: Record<string, unknown>): string | undefined {
  const thinking = body['thinking'];
  if (thinking === undefined) return undefined;
  if (!isObject(thinking) || !['enabled', 'disabled', 'adaptive'].includes(thinking['type'] as string))
    return 'thinking: Input tag does not match any of the expected tags';
  if (thinking['type'] !== 'enabled') return undefined;
  const budget = thinking['budget_tokens'];
  if (!Number.isInteger(budget) || (budget as number) < 1024)
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if ((budget as number) >= (body['max_tokens'] as number))
    return '`max_tokens` must be greater than `thinking.budget_tokens`';
  return undefined;
}

function validateMessages(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return 'messages: Field required';
  if (messages.length === 0) return 'messages: at least one message is required';
  let previousToolUses: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    const role = message['role'];
    if (role === 'system') {
      return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
    }
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (i === 0 && role !== 'user') return 'messages: first message must use the "user" role';
    if (i > 0 && messages[i - 1]?.role === role) return 'messages: roles must alternate between "user" and "assistant"';
    const blocks = blocksOf(message['content']);
    if (!blocks) return `messages.${i}.content: Input should be a valid string or list of content blocks`;
    if (blocks.length === 0 && i < messages.length - 1)
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    const problem = validateBlocks(blocks, role, i);
    if (problem) return problem;
    if (role === 'user') {
      const answered = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);
      const unexpected = answered.find((id) => !previousToolUses.includes(id));
      if (unexpected)
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      const missing = previousToolUses.filter((id) => !answered.includes(id));
      if (missing.length > 0)
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
      if (firstOther >= 0 && blocks.slice(firstOther).some((b) => b.type === 'tool_result'))
        return `messages.${i}.content: \`tool_result\` blocks must come before any other content`;
      previousToolUses = [];
    } else {
      previousToolUses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    }
  }
  // A trailing assistant turn with tool_use blocks is a prefill the model cannot continue.
  if (previousToolUses.length > 0)
    return 'messages: the final assistant message cannot contain `tool_use` blocks without their results';
  return undefined;
}

function blocksOf(content: unknown): WireBlock[] | undefined {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content) || !content.every((b) => isObject(b) && typeof b['type'] === 'string')) return undefined;
  return content as WireBlock[];
}

function validateBlocks(blocks: WireBlock[], role: WireMessage['role'], i: number): string | undefined {
  for (const [j, block] of blocks.entries()) {
    const at = `messages.${i}.content.${j}`;
    if (!BLOCK_TYPES[role].has(block.type))
      return `${at}: \`${block.type}\` blocks are not allowed in ${role} messages`;
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') return `${at}.text: Field required`;
        if (block.text === '') return `${at}: text content blocks must be non-empty`;
        break;
      case 'image': {
        const source = block.source;
        if (source?.type === 'base64') {
          if (!IMAGE_MEDIA_TYPES.has(source.media_type as string))
            return `${at}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
          if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data))
            return `${at}.source.data: invalid base64 data`;
        } else if (source?.type === 'url') {
          if (typeof source.url !== 'string' || !/^https?:\/\//.test(source.url))
            return `${at}.source.url: Input should be a valid URL`;
        } else if (source?.type !== 'file') return `${at}.source: Input tag does not match any of the expected tags`;
        break;
      }
      case 'tool_use':
        if (typeof block.id !== 'string' || !TOOL_ID.test(block.id))
          return `${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (typeof block.name !== 'string' || block.name === '') return `${at}.name: Field required`;
        if (!isObject(block.input)) return `${at}.input: Input should be a valid dictionary`;
        break;
      case 'tool_result':
        if (typeof block.tool_use_id !== 'string' || !TOOL_ID.test(block.tool_use_id))
          return `${at}.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (block.content !== undefined && typeof block.content !== 'string' && !Array.isArray(block.content))
          return `${at}.content: Input should be a valid string or list`;
        break;
    }
  }
  return undefined;
}

/** A valid request as the shared script sees it. */
export function toScriptInput(request: WireRequest): ScriptInput {
  const messages: ScriptMessage[] = [];
  const system =
    typeof request.system === 'string' ? request.system : (request.system ?? []).map((b) => b.text).join('\n');
  if (system) messages.push({ role: 'system', text: system, images: 0 });
  const toolNames = new Map<string, string>();
  for (const message of request.messages) {
    const blocks = blocksOf(message.content) ?? [];
    for (const block of blocks) {
      if (block.type === 'tool_use') toolNames.set(block.id as string, block.name as string);
      if (block.type !== 'tool_result') continue;
      const content = blocksOf(block.content ?? '') ?? [];
      const toolName = toolNames.get(block.tool_use_id as string);
      messages.push({
        role: 'tool',
        text: textOf(content),
        images: imagesIn(content),
        ...(toolName ? { toolName } : {}),
      });
    }
    const own = blocks.filter((b) => b.type !== 'tool_result');
    if (own.length === 0 && blocks.length > 0) continue;
    if (message.role === 'user') {
      for (const said of userMessagesOf(own))
        messages.push({ role: 'user', text: textOf(said), images: imagesIn(said) });
      continue;
    }
    const toolUses = own
      .filter((b) => b.type === 'tool_use')
      .map((b) => JSON.stringify({ name: b.name, input: b.input }));
    messages.push({
      role: message.role,
      text: [textOf(own), ...toolUses].filter((t) => t !== '').join('\n'),
      images: imagesIn(own),
    });
  }
  return {
    model: request.model,
    messages,
    tools: (request.tools ?? []).map((t) => ({ name: t.name, parameters: t.input_schema })),
    toolChoice: toolChoiceOf(request.tool_choice),
    maxTokens: request.max_tokens,
    ...(request.stop_sequences ? { stop: request.stop_sequences } : {}),
    ...samplingOf(request.temperature, undefined),
  };
}

function toolChoiceOf(choice: WireRequest['tool_choice']): ScriptToolChoice {
  if (choice && 'name' in choice) return { name: choice.name };
  if (choice?.type === 'any') return 'required';
  return choice?.type === 'none' ? 'none' : 'auto';
}

const textOf = (blocks: WireBlock[]): string =>
  blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');

/**
 * A user turn's blocks as the messages they were: each text block after the first begins a new
 * one, since the gateway merges consecutive user messages into one turn (Anthropic requires
 * alternation) and the script answers the last message, as it does through the OpenAI format.
 */
function userMessagesOf(blocks: WireBlock[]): WireBlock[][] {
  const messages: WireBlock[][] = [];
  let current: WireBlock[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && current.some((b) => b.type === 'text')) {
      messages.push(current);
      current = [];
    }
    current.push(block);
  }
  return current.length > 0 || messages.length === 0 ? [...messages, current] : messages;
}

const imagesIn = (blocks: WireBlock[]): number => blocks.filter((b) => b.type === 'image').length;
