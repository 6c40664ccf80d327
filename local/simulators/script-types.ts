import type { Pacing } from './pacing.js';
import type { TokenParts } from './usage-directives.js';

/**
 * The simulated model's vocabulary (script.ts): what each simulator reads its wire request into,
 * and the turn it encodes back in its own format. Apart from the script so that its helpers
 * (sampling.ts, web-search-turn.ts) and the simulators can name these without importing it.
 */

export interface ScriptMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly text: string;
  readonly images: number;
  /** For tool results: the name of the tool that produced it, when the wire format says. */
  readonly toolName?: string;
}

export interface ScriptTool {
  readonly name: string;
  readonly parameters?: Record<string, unknown>;
}

export type ScriptToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

export interface ScriptInput {
  readonly model: string;
  readonly messages: readonly ScriptMessage[];
  readonly tools: readonly ScriptTool[];
  readonly toolChoice: ScriptToolChoice;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  readonly temperature?: number;
  readonly seed?: number;
}

export interface ScriptToolCall {
  /** Unique per call; simulators add their provider's prefix (`call_`, `toolu_`). */
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export interface ScriptTurn {
  readonly text: string;
  /** Stream fragments, one per completion token; `pieces.join('') === text`. */
  readonly pieces: readonly string[];
  readonly toolCalls: readonly ScriptToolCall[];
  readonly finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  readonly promptTokens: number;
  /** The answer's own tokens (text or tool calls); reasoning is `parts.reasoning`, beyond these. */
  readonly completionTokens: number;
  /** How fast the answer is written (the pacing directives; none by default). */
  readonly pacing: Pacing;
  /** The prompt's cached parts and the reasoning (the usage directives; none by default). */
  readonly parts: TokenParts;
}
