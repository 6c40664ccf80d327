/**
 * The gateway's canonical chat shapes: the OpenAI chat-completions wire format, which is what
 * clients send and receive. Adapters translate between these and each provider's own format.
 * Only the fields the gateway reads are typed; unknown fields pass through untouched.
 */

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | ContentPart[]; name?: string }
  | { role: 'assistant'; content?: string | TextPart[] | null; tool_calls?: ToolCall[]; name?: string }
  | { role: 'tool'; content: string | TextPart[]; tool_call_id: string };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean };
    };

/** What the gateway asks an adapter to send: already validated, `model` is the upstream's id. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string | string[];
  presence_penalty?: number;
  frequency_penalty?: number;
  seed?: number;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  user?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * The parts of `prompt_tokens`: read from the provider's prompt cache, and written to it (the
   * gateway's addition, OpenRouter's name: present only when the provider charged for writes;
   * `cache_write_1h_tokens` is the part of those kept one hour, Anthropic's dearer cache).
   */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; cache_write_1h_tokens?: number };
  /** The part of `completion_tokens` the model spent reasoning (thinking): billed as output. */
  completion_tokens_details?: { reasoning_tokens?: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null };
    finish_reason: FinishReason;
    logprobs?: null;
  }[];
  usage: Usage;
  system_fingerprint?: string;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string | null; tool_calls?: ToolCallDelta[]; refusal?: string | null };
  finish_reason: FinishReason | null;
  logprobs?: null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  /** Present (possibly null) only when the client asked for usage. */
  usage?: Usage | null;
  system_fingerprint?: string;
}
