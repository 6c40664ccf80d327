import type { FunctionTool, InputItem, ResponsesToolChoice, TextFormat } from './responses-request.js';

/**
 * The Response object as OpenAI's Responses API answers it (and as `GET /api/v1/responses/{id}`
 * answers it again), in the fields the gateway fills; the output items the chat core can
 * produce: assistant messages of text, and function calls.
 */

export interface OutputTextContent {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}
export interface RefusalContent {
  type: 'refusal';
  refusal: string;
}
export interface OutputMessage {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: (OutputTextContent | RefusalContent)[];
}
export interface OutputFunctionCall {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}
export type OutputItem = OutputMessage | OutputFunctionCall;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  /** Unix seconds; null until the response has ended. */
  completed_at: number | null;
  background: false;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: null; summary: null };
  /** Whether the response is kept (retrievable, and chainable by previous_response_id). */
  store: boolean;
  temperature: number;
  text: { format: TextFormat };
  tool_choice: ResponsesToolChoice;
  tools: FunctionTool[];
  top_p: number | null;
  truncation: 'auto' | 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

/**
 * What a stored response keeps (lambdas/store/stored-responses.ts): the Response as answered,
 * and the conversation it answered (the input items of every response it continues, then its
 * own, without their instructions), so a later `previous_response_id` rebuilds the turns.
 */
export interface StoredResponseBody {
  readonly response: ResponseObject;
  readonly conversation: InputItem[];
}
