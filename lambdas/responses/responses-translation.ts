import { chatRequestValidator, type GatewayChatRequest } from '../chat/chat-request.js';
import { checkSchema, MAX_IMAGE_PARTS } from '../chat/chat-request-checks.js';
import type {
  ChatCompletion,
  ChatMessage,
  ContentPart,
  FinishReason,
  ResponseFormat,
  TextPart,
  ToolCall,
  ToolChoice,
  Usage,
} from '../providers/chat-types.js';
import type {
  OutputFunctionCall,
  OutputItem,
  OutputMessage,
  ResponseObject,
  ResponseStatus,
  ResponseUsage,
} from './response-object.js';
import { invalidResponsesRequest } from './responses-errors.js';
import type { InputItem, MessageItem, MessagePart, ResponsesRequest, TextFormat } from './responses-request.js';

/**
 * Both directions between the Responses API and the chat core: a Responses request (and the
 * conversation of the response it continues) becomes the gateway's chat request; the chat
 * core's completion becomes a Response. Every refusal names the caller's field
 * (`input[3].content[0].image_url`), never the chat request's.
 */

/** Where a chat message came from, for naming the caller's field in a refusal. */
export type Origin = string;

export interface TranslatedRequest {
  readonly chat: GatewayChatRequest;
  /** Per chat message: the request field it was made from (`input[2]`, `instructions`, `previous_response_id`). */
  readonly origins: readonly Origin[];
  /** This request's input as items (a string input is one user message), reasoning items left out. */
  readonly items: InputItem[];
}

/** The request's input as items: a string is one user message. */
export function inputItemsOf(request: Pick<ResponsesRequest, 'input'>): InputItem[] {
  return typeof request.input === 'string'
    ? [{ type: 'message', role: 'user', content: request.input }]
    : request.input.filter((item) => item.type !== 'reasoning');
}

/**
 * The chat request for a Responses request. `history` is the conversation of the response
 * `previous_response_id` names (its input items and its output, as items), checked when it
 * was first sent; only this request's own input is checked here.
 */
export function chatRequestOf(request: ResponsesRequest, history: readonly InputItem[] = []): TranslatedRequest {
  const messages: ChatMessage[] = [];
  const origins: Origin[] = [];
  if (request.instructions != null && /\S/.test(request.instructions)) {
    messages.push({ role: 'system', content: request.instructions });
    origins.push('instructions');
  }
  const calls = new Set<string>();
  const add = (item: InputItem, origin: Origin) => {
    const message = messageOf(item, origin, calls);
    if (!message) return;
    const last = messages.at(-1);
    // A function call right after the assistant's text (or its other calls) is the same turn.
    if (message.role === 'assistant' && message.tool_calls && last?.role === 'assistant') {
      last.tool_calls = [...(last.tool_calls ?? []), ...message.tool_calls];
      return;
    }
    messages.push(message);
    origins.push(origin);
  };
  for (const item of history) add(item, 'previous_response_id');
  const inputs = typeof request.input === 'string' ? undefined : request.input;
  if (inputs) inputs.forEach((item, i) => add(item, `input[${i}]`));
  else add({ role: 'user', content: request.input as string }, 'input');

  if (!messages.some((message) => message.role === 'user'))
    throw invalidResponsesRequest(
      'input',
      'input: must include at least one user message (in this request or the responses it continues)',
    );
  checkImageCount(messages);
  request.tools?.forEach((tool, i) => {
    if (tool.parameters) checkSchema(tool.parameters, `tools[${i}].parameters`);
  });
  const format = request.text?.format;
  if (format?.type === 'json_schema' && format.schema) checkSchema(format.schema, 'text.format.schema');
  checkToolChoice(request);

  const chat: GatewayChatRequest = { model: request.model, messages };
  if (request.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (request.temperature != null) chat.temperature = request.temperature;
  if (request.top_p != null) chat.top_p = request.top_p;
  if (request.max_output_tokens != null) chat.max_completion_tokens = request.max_output_tokens;
  if (request.user !== undefined) chat.user = request.user;
  if (request.tools?.length)
    chat.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description != null ? { description: tool.description } : {}),
        ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
        ...(tool.strict != null ? { strict: tool.strict } : {}),
      },
    }));
  if (request.tool_choice !== undefined) chat.tool_choice = toolChoiceOf(request.tool_choice);
  if (request.parallel_tool_calls != null) chat.parallel_tool_calls = request.parallel_tool_calls;
  const responseFormat = format && responseFormatOf(format);
  if (responseFormat) chat.response_format = responseFormat;
  if (request.fallback) chat.fallback = request.fallback;
  if (request.retries !== undefined) chat.retries = request.retries;
  if (request.timeout !== undefined) chat.timeout = request.timeout;
  if (request.load_balance) chat.load_balance = request.load_balance;
  if (request.guardrails) chat.guardrails = request.guardrails;
  checkAsChatRequest(chat, origins);
  return { chat, origins, items: [...inputItemsOf(request)] };
}

/**
 * The chat schema, run on the translation: a last check that what the chat core is given is a
 * request chat completions would take (and the one that fills in its defaults, the temperature).
 * The Responses checks above should leave nothing for it to find.
 */
function checkAsChatRequest(chat: GatewayChatRequest, origins: readonly Origin[]): void {
  if (chatRequestValidator(chat)) return;
  const error = chatRequestValidator.errors?.[0];
  const at = /^\/messages\/(\d+)/.exec(error?.instancePath ?? '');
  const field = at ? (origins[Number(at[1])] ?? 'input') : 'input';
  throw invalidResponsesRequest(field, `${field}: ${error?.message ?? 'is not a request the models take'}`);
}

function messageOf(item: InputItem, origin: Origin, calls: Set<string>): ChatMessage | undefined {
  switch (item.type) {
    case 'reasoning':
      return undefined;
    case 'function_call': {
      calls.add(item.call_id);
      const call: ToolCall = {
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      };
      return { role: 'assistant', content: null, tool_calls: [call] };
    }
    case 'function_call_output': {
      if (!calls.has(item.call_id))
        throw invalidResponsesRequest(
          `${origin}.call_id`,
          `${origin}.call_id: no function_call with call_id "${item.call_id}" comes before it (in this input or the response previous_response_id names)`,
        );
      const content =
        typeof item.output === 'string'
          ? item.output
          : item.output.map((part, j) => textOf(part, `${origin}.output[${j}]`, 'tool'));
      return { role: 'tool', tool_call_id: item.call_id, content };
    }
    default:
      return contentMessageOf(item, origin);
  }
}

function contentMessageOf(item: MessageItem, origin: Origin): ChatMessage {
  const { role, content } = item;
  if (typeof content === 'string') {
    if (role === 'assistant') return { role, content };
    if (!/\S/.test(content))
      throw invalidResponsesRequest(`${origin}.content`, `${origin}.content: must be text that is not empty or blank`);
    return role === 'user' ? { role, content } : { role, content };
  }
  if (content.length === 0 && role !== 'assistant')
    throw invalidResponsesRequest(`${origin}.content`, `${origin}.content: must hold at least one part`);
  if (role === 'user') return { role, content: content.map((part, j) => userPartOf(part, `${origin}.content[${j}]`)) };
  const parts = content.map((part, j) => textOf(part, `${origin}.content[${j}]`, role));
  if (role === 'assistant') return { role, content: parts.map((part) => part.text).join('') };
  return { role, content: parts };
}

function userPartOf(part: MessagePart, field: string): ContentPart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: part.text };
    case 'input_image': {
      if (part.file_id != null)
        throw invalidResponsesRequest(
          `${field}.file_id`,
          `${field}.file_id: file ids are not supported (there is no file store); send the image as image_url (a URL or a data: URI)`,
        );
      if (part.image_url == null)
        throw invalidResponsesRequest(`${field}.image_url`, `${field}.image_url: is required (a URL or a data: URI)`);
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    }
    default:
      throw refusedPart(part, field, 'user');
  }
}

/** Whose part it is: a message's role, or `tool` for a function call's output. */
type PartOwner = MessageItem['role'] | 'tool';

const OWNER_NAMES: Record<PartOwner, string> = {
  user: 'a user message',
  assistant: 'an assistant message',
  system: 'a system message',
  developer: 'a developer message',
  tool: 'a function call output',
};

/** A part that must be text: input_text, or in an assistant's turn its output_text or refusal. */
function textOf(part: MessagePart, field: string, owner: PartOwner): TextPart {
  if (part.type === 'input_text') return { type: 'text', text: part.text };
  if (owner === 'assistant' && part.type === 'output_text') return { type: 'text', text: part.text };
  if (owner === 'assistant' && part.type === 'refusal') return { type: 'text', text: part.refusal };
  throw refusedPart(part, field, owner);
}

function refusedPart(part: MessagePart, field: string, owner: PartOwner) {
  const why =
    part.type === 'input_file'
      ? 'files are not supported (there is no file store)'
      : `${part.type} is not a part ${OWNER_NAMES[owner]} takes`;
  return invalidResponsesRequest(`${field}.type`, `${field}.type: ${why}`);
}

function checkImageCount(messages: readonly ChatMessage[]): void {
  let images = 0;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) if (part.type === 'image_url') images++;
  }
  if (images > MAX_IMAGE_PARTS)
    throw invalidResponsesRequest(
      'input',
      `input: at most ${MAX_IMAGE_PARTS} images are allowed in one request (the responses it continues included)`,
    );
}

/** A forced tool must be one of `tools`; providers would refuse it later, some with a 500. */
function checkToolChoice(request: ResponsesRequest): void {
  const choice = request.tool_choice;
  const names = (request.tools ?? []).map((tool) => tool.name);
  if (choice === 'required' && names.length === 0)
    throw invalidResponsesRequest('tool_choice', 'tool_choice: "required" needs at least one tool in tools');
  if (typeof choice === 'object' && !names.includes(choice.name))
    throw invalidResponsesRequest(
      'tool_choice.name',
      `tool_choice.name: "${choice.name}" is not the name of a function in tools`,
    );
}

const toolChoiceOf = (choice: NonNullable<ResponsesRequest['tool_choice']>): ToolChoice =>
  typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };

function responseFormatOf(format: TextFormat): ResponseFormat | undefined {
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema':
      return {
        type: 'json_schema',
        json_schema: {
          name: format.name,
          ...(format.schema ? { schema: format.schema } : {}),
          ...(format.description !== undefined ? { description: format.description } : {}),
          ...(format.strict != null ? { strict: format.strict } : {}),
        },
      };
  }
}

/** The fields of a Response that restate the request, with OpenAI's defaults for what it left out. */
export interface ResponseShell {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly request: ResponsesRequest;
  /** The temperature the chat core samples at (the caller's, else docs/interface.md §2.2's default). */
  readonly temperature: number;
  readonly store: boolean;
}

/** A Response with no output yet, in `status` (what a stream's `response.created` says). */
export function responseShellOf(shell: ResponseShell, status: ResponseStatus = 'in_progress'): ResponseObject {
  const { request } = shell;
  return {
    id: shell.id,
    object: 'response',
    created_at: shell.createdAt,
    status,
    completed_at: null,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: shell.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: shell.store,
    temperature: shell.temperature,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** How the answer ended, as a Response's status and incomplete_details say it. */
export function endOf(finish: FinishReason | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function usageOf(usage: Usage | null | undefined): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** Makes the ids of output items (`msg_…`, `fc_…`), and of calls whose upstream gave none (`call_…`). */
export type ItemIds = (prefix: 'msg' | 'fc' | 'call') => string;

/** The chat core's whole answer as a Response. */
export function responseOf(
  shell: ResponseShell,
  completion: ChatCompletion,
  ids: ItemIds,
  completedAt: number,
): ResponseObject {
  const choice = completion.choices[0];
  const output: OutputItem[] = [];
  const itemStatus = choice?.finish_reason === 'length' ? 'incomplete' : 'completed';
  const content: OutputMessage['content'] = [];
  if (choice?.message.content) content.push(outputText(choice.message.content));
  if (choice?.message.refusal) content.push({ type: 'refusal', refusal: choice.message.refusal });
  if (content.length > 0)
    output.push({ type: 'message', id: ids('msg'), status: itemStatus, role: 'assistant', content });
  for (const call of choice?.message.tool_calls ?? []) output.push(functionCallOf(call, ids('fc')));
  return {
    ...responseShellOf(shell),
    ...endOf(choice?.finish_reason),
    model: completion.model,
    completed_at: completedAt,
    output,
    usage: usageOf(completion.usage),
  };
}

export const outputText = (text: string) => ({ type: 'output_text' as const, text, annotations: [], logprobs: [] });

function functionCallOf(call: ToolCall, id: string): OutputFunctionCall {
  return {
    type: 'function_call',
    id,
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    status: 'completed',
  };
}

/**
 * A response's output as input items of a later request: what `previous_response_id` adds to
 * the conversation after the response's own input.
 */
export const outputAsInput = (output: readonly OutputItem[]): InputItem[] =>
  output.map((item) =>
    item.type === 'message'
      ? {
          type: 'message',
          id: item.id,
          role: 'assistant',
          content: item.content.map((part) =>
            part.type === 'refusal' ? part : { type: 'output_text', text: part.text, annotations: [] },
          ),
        }
      : { ...item },
  );
