import { chatRequestSchema, MAX_CONTENT_PARTS, MAX_MESSAGES, MAX_TOOLS } from '../chat/chat-request.js';
import type { LoadBalanceStrategy, GuardrailName } from '../chat/chat-request.js';
import { compileConditional } from '../schema/compile.js';

/**
 * The body of `POST /api/v1/responses` (docs/interface.md §4.13): OpenAI's Responses request as
 * far as the chat core can serve it, and the gateway's own routing fields as chat completions
 * takes them. Fields the chat core cannot honour are refused by name rather than ignored
 * (built-in tools, file ids, background runs); what is accepted and has no effect is listed in
 * the interface (`reasoning`, `truncation: auto`, `include`).
 */

/** Documented in docs/interface.md §4.13. */
export const MAX_INPUT_ITEMS = MAX_MESSAGES;
export const MAX_METADATA_PAIRS = 16;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;
const MAX_TEXT_CHARS = 1_000_000;
const MAX_ID_CHARS = 200;

export interface InputTextPart {
  type: 'input_text';
  text: string;
}
export interface InputImagePart {
  type: 'input_image';
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'auto' | 'low' | 'high';
}
export interface InputFilePart {
  type: 'input_file';
}
export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations?: unknown[];
}
export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}
export type MessagePart = InputTextPart | InputImagePart | InputFilePart | OutputTextPart | RefusalPart;

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

export interface MessageItem {
  type?: 'message';
  id?: string;
  role: MessageRole;
  content: string | MessagePart[];
  status?: string;
}
export interface FunctionCallItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
  status?: string;
}
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  id?: string;
  call_id: string;
  output: string | (InputTextPart | InputImagePart | InputFilePart)[];
  status?: string;
}
/** A reasoning item replayed from another provider's answer: accepted, and not sent on. */
export interface ReasoningItem {
  type: 'reasoning';
}
export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | ReasoningItem;

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema?: Record<string, unknown>;
      description?: string;
      strict?: boolean | null;
    };

export interface ResponsesRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  tools?: FunctionTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  temperature?: number | null;
  top_p?: number | null;
  max_output_tokens?: number | null;
  stream?: boolean | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  metadata?: Record<string, string> | null;
  user?: string;
  text?: { format?: TextFormat; verbosity?: string | null } | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  truncation?: 'auto' | 'disabled' | null;
  include?: string[] | null;
  background?: boolean | null;
  // The gateway's own fields, as chat completions takes them (docs/interface.md §2.2).
  fallback?: string[];
  retries?: number;
  timeout?: number;
  load_balance?: { strategy: LoadBalanceStrategy; targets: { model: string; weight?: number }[] };
  guardrails?: { enabled: GuardrailName[] };
}

const text = { type: 'string', maxLength: MAX_TEXT_CHARS };
/** Several providers refuse empty or blank turns; say so here rather than as their 400. */
const nonBlank = {
  type: 'string',
  maxLength: MAX_TEXT_CHARS,
  pattern: '\\S',
  'x-message': { pattern: 'must be text that is not empty or blank' },
};
const itemId = { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS };
const status = { enum: ['in_progress', 'completed', 'incomplete'] };

const inputText = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'input_text' }, text: nonBlank },
};
const inputImage = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { const: 'input_image' },
    image_url: { type: ['string', 'null'], minLength: 1, maxLength: 20_000_000 },
    file_id: { type: ['string', 'null'], maxLength: MAX_ID_CHARS },
    detail: { enum: ['auto', 'low', 'high'] },
  },
};
/** Files are refused by the checks (responses-checks.ts), naming the part: no file store here. */
const inputFile = { type: 'object', required: ['type'], properties: { type: { const: 'input_file' } } };
const outputText = {
  type: 'object',
  required: ['type', 'text'],
  properties: {
    type: { const: 'output_text' },
    text,
    annotations: { type: 'array', maxItems: 1000 },
  },
};
const refusal = {
  type: 'object',
  required: ['type', 'refusal'],
  properties: { type: { const: 'refusal' }, refusal: text },
};
const messagePart = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['input_text', 'input_image', 'input_file', 'output_text', 'refusal'] } },
  discriminator: { propertyName: 'type' },
  oneOf: [inputText, inputImage, inputFile, outputText, refusal],
};
const toolOutputPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['input_text', 'input_image', 'input_file'] } },
  discriminator: { propertyName: 'type' },
  oneOf: [inputText, inputImage, inputFile],
};

/**
 * Text, or a list of `items`: one schema whose keywords apply by the value's type (`maxLength`
 * to the text, `items` to the list) rather than an `anyOf`, so that a fault deep in a list is
 * reported where it is (`input[3].content[0].image_url`), not as "input matches no alternative".
 */
function textOrList(items: object, what: string) {
  return {
    type: ['string', 'array'],
    maxLength: MAX_TEXT_CHARS,
    maxItems: MAX_CONTENT_PARTS,
    items,
    'x-message': { type: `must be a string or an array of ${what}` },
  };
}

const messageItem = {
  type: 'object',
  required: ['role', 'content'],
  properties: {
    type: { const: 'message' },
    id: itemId,
    role: { enum: ['user', 'assistant', 'system', 'developer'] },
    content: textOrList(messagePart, 'content parts'),
    status,
  },
};
const functionCallItem = {
  type: 'object',
  required: ['type', 'call_id', 'name', 'arguments'],
  properties: {
    type: { const: 'function_call' },
    id: itemId,
    call_id: itemId,
    name: { type: 'string', minLength: 1, maxLength: 64 },
    arguments: text,
    status,
  },
};
const functionCallOutputItem = {
  type: 'object',
  required: ['type', 'call_id', 'output'],
  properties: {
    type: { const: 'function_call_output' },
    id: itemId,
    call_id: itemId,
    output: textOrList(toolOutputPart, 'input_text parts'),
    status,
  },
};
const reasoningItem = { type: 'object', required: ['type'], properties: { type: { const: 'reasoning' } } };

/** The item types a caller may send; others (built-in tools' calls, references) are refused by name. */
export const INPUT_ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const;

/**
 * One input item, checked by the rules of its `type`. A message may leave `type` out (OpenAI's
 * "easy" input message), so `discriminator` cannot pick the branch; each type's rules apply
 * under an if/then instead, and only that branch's failures are reported.
 */
const inputItem = {
  type: 'object',
  properties: {
    type: {
      enum: [...INPUT_ITEM_TYPES],
      'x-message': {
        enum: `must be one of ${INPUT_ITEM_TYPES.join(', ')} (built-in tools' items and item references are not supported)`,
      },
    },
  },
  allOf: [
    { if: { not: { required: ['type'], properties: { type: { type: 'string' } } } }, then: messageItem },
    { if: { required: ['type'], properties: { type: { const: 'message' } } }, then: messageItem },
    { if: { required: ['type'], properties: { type: { const: 'function_call' } } }, then: functionCallItem },
    {
      if: { required: ['type'], properties: { type: { const: 'function_call_output' } } },
      then: functionCallOutputItem,
    },
    { if: { required: ['type'], properties: { type: { const: 'reasoning' } } }, then: reasoningItem },
  ],
};

const anyObject = { type: 'object', additionalProperties: true };

/** A function tool in the Responses shape: flat, not chat's `{type, function: {…}}`. */
const functionToolRules = {
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: ['string', 'null'], maxLength: 10_000 },
    parameters: { anyOf: [anyObject, { type: 'null' }] },
    strict: { type: ['boolean', 'null'] },
  },
};
/**
 * Built-in tools have no counterpart in the chat core: each is refused naming `tools[i].type`,
 * which is checked before the function's own fields.
 */
const functionTool = {
  type: 'object',
  required: ['type'],
  properties: {
    type: {
      const: 'function',
      'x-message': {
        const:
          'must be function: built-in tools (web_search_preview, file_search, computer_use_preview, …) are not supported',
      },
    },
    ...functionToolRules.properties,
  },
  if: { required: ['type'], properties: { type: { const: 'function' } } },
  then: functionToolRules,
};

const textFormat = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['text', 'json_object', 'json_schema'] },
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    schema: anyObject,
    description: { type: 'string', maxLength: 10_000 },
    strict: { type: ['boolean', 'null'] },
  },
  if: { required: ['type'], properties: { type: { const: 'json_schema' } } },
  then: {
    required: ['name', 'schema'],
    properties: { name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, schema: anyObject },
  },
};

const metadata = {
  type: ['object', 'null'],
  maxProperties: MAX_METADATA_PAIRS,
  propertyNames: { maxLength: MAX_METADATA_KEY_CHARS },
  additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_CHARS },
  'x-message': {
    maxProperties: `must hold at most ${MAX_METADATA_PAIRS} pairs`,
    propertyNames: `keys must be at most ${MAX_METADATA_KEY_CHARS} characters`,
  },
};

const gateway = chatRequestSchema.properties;

export const responsesRequestSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: gateway.model,
    input: {
      ...textOrList(inputItem, 'input items'),
      pattern: '\\S',
      minItems: 1,
      maxItems: MAX_INPUT_ITEMS,
      'x-message': {
        type: 'must be text or an array of input items',
        pattern: 'must be text that is not empty or blank',
        minItems: 'must hold at least one item',
      },
    },
    instructions: { type: ['string', 'null'], maxLength: MAX_TEXT_CHARS },
    tools: { type: 'array', maxItems: MAX_TOOLS, items: functionTool },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type'],
          properties: { type: { const: 'function' }, name: { type: 'string', minLength: 1, maxLength: 64 } },
          // The name is asked for only of a function choice: a hosted tool's is refused as a choice.
          if: { required: ['type'], properties: { type: { const: 'function' } } },
          then: { required: ['name'], properties: { name: { type: 'string' } } },
        },
      ],
      'x-message': { anyOf: 'must be one of none, auto, required, or {"type": "function", "name": …}' },
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: gateway.top_p,
    max_output_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'] },
    store: { type: ['boolean', 'null'] },
    previous_response_id: { type: ['string', 'null'], minLength: 1, maxLength: MAX_ID_CHARS },
    metadata,
    user: gateway.user,
    text: {
      type: ['object', 'null'],
      properties: { format: textFormat, verbosity: { enum: ['low', 'medium', 'high', null] } },
    },
    reasoning: {
      type: ['object', 'null'],
      properties: {
        effort: { enum: ['minimal', 'low', 'medium', 'high', null] },
        summary: { enum: ['auto', 'concise', 'detailed', null] },
      },
    },
    truncation: { enum: ['auto', 'disabled', null] },
    include: { type: ['array', 'null'], maxItems: 20, items: { type: 'string', maxLength: 100 } },
    background: {
      enum: [false, null],
      'x-message': { enum: 'must be false: background responses are not supported' },
    },
    conversation: {
      not: {},
      'x-message': { not: 'is not supported: chain responses with previous_response_id' },
    },
    prompt: {
      not: {},
      'x-message': { not: 'is not supported: the gateway’s managed prompts are chat completions’ prompt_id' },
    },
    fallback: gateway.fallback,
    retries: gateway.retries,
    timeout: gateway.timeout,
    load_balance: gateway.load_balance,
    guardrails: gateway.guardrails,
  },
};

export const responsesRequestValidator = compileConditional<ResponsesRequest>(responsesRequestSchema);
