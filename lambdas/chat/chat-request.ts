import { compileConditional } from '../schema/compile.js';
import type { ChatMessage, ResponseFormat, ToolChoice, ToolDefinition } from '../providers/chat-types.js';

export type GuardrailName = 'pii' | 'content_moderation' | 'schema_validation';
export type LoadBalanceStrategy = 'weighted' | 'round-robin' | 'least-latency';

/** The gateway request of docs/interface.md §2.2, as validated. */
export interface GatewayChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  user?: string;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  fallback?: string[];
  retries?: number;
  timeout?: number;
  load_balance?: { strategy: LoadBalanceStrategy; targets: { model: string; weight?: number }[] };
  guardrails?: { enabled: GuardrailName[] };
  prompt_id?: string;
  prompt_version?: number;
  prompt_variables?: Record<string, unknown>;
}

/**
 * docs/interface.md §2.2's default, sent upstream whenever the caller gives none (or null), so every
 * provider samples at the same temperature rather than at its own default (OpenAI's is 1).
 */
export const DEFAULT_TEMPERATURE = 0.7;
export const DEFAULT_RETRIES = 2;
export const MAX_RETRIES = 5;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 300_000;

/** Documented in README.md (chat completions, limits). */
export const MAX_MESSAGES = 10_000;
export const MAX_CONTENT_PARTS = 1000;
export const MAX_TOOLS = 128;

const text = { type: 'string', maxLength: 1_000_000 };
/** Several providers refuse empty or blank turns; say so here rather than as their 400. */
const nonBlank = {
  type: 'string',
  maxLength: 1_000_000,
  pattern: '\\S',
  'x-message': { pattern: 'must be text that is not empty or blank' },
};
const textParts = {
  type: 'array',
  maxItems: MAX_CONTENT_PARTS,
  items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text } },
};
const nonBlankParts = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_CONTENT_PARTS,
  items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: nonBlank } },
};
const contentPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'image_url'] } },
  oneOf: [
    { properties: { type: { const: 'text' }, text: nonBlank }, required: ['text'] },
    {
      properties: {
        type: { const: 'image_url' },
        image_url: {
          type: 'object',
          required: ['url'],
          properties: {
            url: { type: 'string', minLength: 1, maxLength: 20_000_000 },
            detail: { enum: ['auto', 'low', 'high'] },
          },
        },
      },
      required: ['image_url'],
    },
  ],
};
const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 64 }, arguments: { type: 'string' } },
    },
  },
};
/**
 * One turn, checked by the rules of its role: `role` picks its branch of `oneOf` (ajv's
 * `discriminator`, lambdas/schema/compile.ts), so only that branch's failures are reported, and
 * client generators type each role's turn apart (a system turn needs content, a tool turn its
 * tool_call_id).
 */
const message = {
  type: 'object',
  required: ['role'],
  properties: { role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] } },
  discriminator: { propertyName: 'role' },
  oneOf: [
    {
      required: ['role', 'content'],
      properties: {
        role: { enum: ['system', 'developer'] },
        content: {
          anyOf: [nonBlank, nonBlankParts],
          'x-message': { anyOf: 'must be a string or an array of text parts' },
        },
      },
    },
    {
      required: ['role', 'content'],
      properties: {
        role: { const: 'user' },
        content: {
          anyOf: [nonBlank, { type: 'array', minItems: 1, maxItems: MAX_CONTENT_PARTS, items: contentPart }],
          'x-message': { anyOf: 'must be a string or an array of content parts' },
        },
      },
    },
    {
      required: ['role'],
      properties: {
        role: { const: 'assistant' },
        content: { anyOf: [text, textParts, { type: 'null' }] },
        tool_calls: { type: 'array', maxItems: 128, items: toolCall },
      },
    },
    {
      required: ['role', 'content', 'tool_call_id'],
      properties: {
        role: { const: 'tool' },
        content: { anyOf: [text, textParts] },
        tool_call_id: { type: 'string', minLength: 1 },
      },
    },
  ],
};
const modelName = { type: 'string', minLength: 1, maxLength: 200 };
/**
 * Any JSON object (a JSON Schema, template variables). `additionalProperties: true` checks
 * nothing more; it tells generated clients the members are free (openapi-typescript reads a
 * bare `type: object` as an object with no members at all).
 */
const anyObject = { type: 'object', additionalProperties: true };
const jsonSchemaFormat = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    schema: anyObject,
    strict: { type: ['boolean', 'null'] },
  },
};
const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        description: { type: 'string', maxLength: 10_000 },
        parameters: anyObject,
        strict: { type: 'boolean' },
      },
    },
  },
};

/**
 * docs/interface.md §2.2's fields are checked strictly; other OpenAI fields an SDK may send (`store`,
 * `metadata`, `logprobs`, ...) are accepted and ignored, so ordinary clients work unchanged.
 */
export const chatRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: modelName,
    // At least one user turn: Anthropic and Gemini refuse conversations without one.
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MESSAGES,
      items: message,
      contains: { type: 'object', required: ['role'], properties: { role: { const: 'user' } } },
      'x-message': {
        minItems: 'must include at least one user message (an empty list is refused)',
        contains: 'must include at least one user message (only system or assistant turns is refused)',
      },
    },
    stream: { type: 'boolean' },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2, default: DEFAULT_TEMPERATURE },
    max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    stop: {
      anyOf: [
        { type: 'string', maxLength: 1000 },
        { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 1000 } },
        { type: 'null' },
      ],
      'x-message': { anyOf: 'must be a string, an array of at most 4 strings, or null' },
    },
    // Beyond 2^53 a JSON integer is no longer the integer the caller wrote.
    seed: { type: ['integer', 'null'], minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 1 },
    user: { type: 'string', maxLength: 256 },
    tools: { type: 'array', maxItems: MAX_TOOLS, items: tool },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: {
            type: { const: 'function' },
            function: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
          },
        },
      ],
      'x-message': { anyOf: 'must be one of none, auto, required, or {"type": "function", "function": {"name": …}}' },
    },
    parallel_tool_calls: { type: 'boolean' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: jsonSchemaFormat,
      },
      // The `then` names the property it requires, as OpenAPI linters expect; so it checks the
      // property only when `type` says json_schema (a missing `type` is reported as missing).
      if: { required: ['type'], properties: { type: { const: 'json_schema' } } },
      then: { required: ['json_schema'], properties: { json_schema: jsonSchemaFormat } },
    },
    fallback: { type: 'array', maxItems: 10, items: modelName },
    retries: { type: 'integer', minimum: 0, maximum: MAX_RETRIES },
    timeout: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS },
    load_balance: {
      type: 'object',
      required: ['strategy', 'targets'],
      additionalProperties: false,
      properties: {
        strategy: { enum: ['weighted', 'round-robin', 'least-latency'] },
        targets: {
          type: 'array',
          minItems: 1,
          maxItems: 20,
          items: {
            type: 'object',
            required: ['model'],
            additionalProperties: false,
            properties: { model: modelName, weight: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 } },
          },
        },
      },
    },
    guardrails: {
      type: 'object',
      required: ['enabled'],
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'array',
          uniqueItems: true,
          maxItems: 3,
          items: { enum: ['pii', 'content_moderation', 'schema_validation'] },
        },
      },
    },
    prompt_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    prompt_version: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    prompt_variables: anyObject,
  },
};

export const chatRequestValidator = compileConditional<GatewayChatRequest>(chatRequestSchema);
