import { ChatError } from '../chat-errors.js';
import type { ChatCompletionChunk, ChatRequest, ToolCallDelta } from '../../providers/chat-types.js';
import type { Moderator } from './moderation.js';
import { answerStatuses, contentBlocked, schemaFailed, type GuardrailName, type GuardrailStatus } from './outcomes.js';
import { redactPii } from './pii.js';
import { validateAnswer, type SchemaResult } from './schema-validation.js';
import { StreamRedactor } from './stream-redactor.js';

/**
 * The guardrails on a streamed answer. Per upstream chunk, forward `transform(chunk)`; when the
 * upstream ends, forward `flush()` if it returns a chunk, then `await finalCheck()` and send its
 * error, if any, as the final error frame (before the usage chunk and [DONE]).
 * Headers go out before the first chunk, so X-Guardrail-Status on a stream can only carry the
 * request's statuses; `statuses()` has the final ones (for logs and metering).
 */
export interface AnswerStreamGuard {
  /**
   * Redacts one chunk's content and tool-argument fragments. A choice's held-back text goes out
   * in the chunk that carries its finish_reason, so forwarding every chunk through here is enough.
   */
  transform(chunk: ChatCompletionChunk): ChatCompletionChunk;
  /**
   * Held-back text of choices that have not finished, as one chunk (undefined when none): call it
   * when the upstream stream ends, before the usage chunk and [DONE]. Calling it before a chunk
   * with a finish_reason is also safe, provided that chunk carries no further content.
   */
  flush(): ChatCompletionChunk | undefined;
  /**
   * At the end: schema validation and moderation of the whole answer. An error is returned, not
   * thrown, for the integrator to send as the stream's final error frame. Moderation of a stream
   * can only report after the text went out; blocking it beforehand would mean not streaming.
   */
  finalCheck(): Promise<{ error?: ChatError }>;
  /** The X-Guardrail-Status outcomes so far; complete after finalCheck. */
  statuses(): GuardrailStatus[];
  /** The error finalCheck stopped the answer with, if it did. */
  blockedBy(): ChatError | undefined;
}

interface ChoiceState {
  content: StreamRedactor;
  tools: Map<number, StreamRedactor>;
  /** What the model sent, for the final checks. */
  text: string;
  toolArguments: Map<number, string>;
}

/**
 * Where the guard is: chunks passing, the final check running, or its verdict. `blocked` also
 * covers an answer that could not be checked (moderation down): either way it is not cleared.
 * The schema result is kept from the moment it is known, so a later block still reports it.
 */
export type GuardPhase =
  | { readonly name: 'relaying' }
  | { readonly name: 'checking'; readonly schema?: SchemaResult }
  | { readonly name: 'passed'; readonly schema?: SchemaResult }
  | { readonly name: 'blocked'; readonly schema?: SchemaResult; readonly error: ChatError };

/** A streamed answer's guard; redacted stream output equals redactPii of the whole text. */
export class StreamGuard implements AnswerStreamGuard {
  #phase: GuardPhase = { name: 'relaying' };
  readonly #pii: boolean;
  readonly #choices = new Map<number, ChoiceState>();
  /** The latest upstream chunk: a flushed chunk borrows its id, created and model. */
  #last: ChatCompletionChunk | undefined;

  constructor(
    private readonly enabled: readonly GuardrailName[],
    private readonly request: ChatRequest,
    private readonly moderator: Moderator,
    private readonly options: { signal?: AbortSignal; requestStatuses?: readonly GuardrailStatus[] } = {},
  ) {
    this.#pii = enabled.includes('pii');
  }

  get phase(): GuardPhase {
    return this.#phase;
  }

  transform(chunk: ChatCompletionChunk): ChatCompletionChunk {
    this.#last = chunk;
    const pii = this.#pii;
    return {
      ...chunk,
      choices: chunk.choices.map((choice) => {
        const s = this.#choice(choice.index);
        const delta = { ...choice.delta };
        if (typeof delta.content === 'string') {
          s.text += delta.content;
          if (pii) delta.content = s.content.push(delta.content);
        }
        if (delta.tool_calls) {
          delta.tool_calls = delta.tool_calls.map((call) => {
            const fragment = call.function?.arguments;
            if (typeof fragment !== 'string') return call;
            s.toolArguments.set(call.index, (s.toolArguments.get(call.index) ?? '') + fragment);
            return pii
              ? { ...call, function: { ...call.function, arguments: toolRedactor(s, call.index).push(fragment) } }
              : call;
          });
        }
        if (pii && choice.finish_reason !== null) {
          const tail = rest(s);
          if (tail.content !== '') delta.content = (delta.content ?? '') + tail.content;
          if (tail.tools.length > 0) delta.tool_calls = mergeArguments(delta.tool_calls ?? [], tail.tools);
        }
        return { ...choice, delta };
      }),
    };
  }

  flush(): ChatCompletionChunk | undefined {
    const last = this.#last;
    if (!this.#pii || !last) return undefined;
    const flushed = [...this.#choices].flatMap(([index, s]) => {
      const tail = rest(s);
      if (tail.content === '' && tail.tools.length === 0) return [];
      const delta: ChatCompletionChunk['choices'][number]['delta'] = {};
      if (tail.content !== '') delta.content = tail.content;
      if (tail.tools.length > 0) delta.tool_calls = mergeArguments([], tail.tools);
      return [{ index, delta, finish_reason: null }];
    });
    if (flushed.length === 0) return undefined;
    return {
      id: last.id,
      object: 'chat.completion.chunk',
      created: last.created,
      model: last.model,
      choices: flushed,
    };
  }

  /** relaying → checking → passed | blocked. */
  async finalCheck(): Promise<{ error?: ChatError }> {
    const { enabled } = this;
    const choices = [...this.#choices.values()];
    this.#phase = { name: 'checking' };
    try {
      if (enabled.includes('schema_validation')) {
        const results = choices.map((s) =>
          validateAnswer({ content: s.text, hasToolCalls: s.toolArguments.size > 0 }, this.request.response_format),
        );
        const failed = results.find((r) => r.outcome === 'fail');
        if (failed) return this.#block(schemaFailed(failed.errors ?? []));
        this.#phase = { name: 'checking', schema: results.find((r) => r.outcome === 'pass') ?? { outcome: 'skip' } };
      }
      if (enabled.includes('content_moderation')) {
        const shown = (text: string) => (this.#pii ? redactPii(text).text : text);
        const texts = choices.flatMap((s) => [shown(s.text), ...[...s.toolArguments.values()].map(shown)]);
        const signal = this.options.signal ?? new AbortController().signal;
        const result = await this.moderator.moderate(texts, signal, 'output');
        if (result.flagged) return this.#block(contentBlocked('answer', result.categories));
      }
      this.#phase = { name: 'passed', schema: this.#schema() };
      return {};
    } catch (error) {
      if (error instanceof ChatError) return this.#block(error);
      throw error;
    }
  }

  statuses(): GuardrailStatus[] {
    const all = answerStatuses(this.enabled, this.options.requestStatuses ?? [], this.#found(), this.#schema());
    // Moderation of a stream reports only once it has cleared the whole answer.
    return all.filter((s) => s.guardrail !== 'content_moderation' || this.#phase.name === 'passed');
  }

  blockedBy(): ChatError | undefined {
    return this.#phase.name === 'blocked' ? this.#phase.error : undefined;
  }

  #block(error: ChatError): { error: ChatError } {
    this.#phase = { name: 'blocked', schema: this.#schema(), error };
    return { error };
  }

  #schema(): SchemaResult | undefined {
    return this.#phase.name === 'relaying' ? undefined : this.#phase.schema;
  }

  #choice(index: number): ChoiceState {
    let s = this.#choices.get(index);
    if (!s)
      this.#choices.set(
        index,
        (s = { content: new StreamRedactor(), tools: new Map(), text: '', toolArguments: new Map() }),
      );
    return s;
  }

  #found(): number {
    let found = 0;
    for (const s of this.#choices.values()) {
      found += s.content.found;
      for (const r of s.tools.values()) found += r.found;
    }
    return found;
  }
}

/** A streamed answer's guard for the enabled guardrails (see StreamGuard). */
export function answerStreamGuard(
  enabled: readonly GuardrailName[],
  request: ChatRequest,
  moderator: Moderator,
  options: { signal?: AbortSignal; requestStatuses?: readonly GuardrailStatus[] } = {},
): StreamGuard {
  return new StreamGuard(enabled, request, moderator, options);
}

function toolRedactor(s: ChoiceState, index: number): StreamRedactor {
  let r = s.tools.get(index);
  if (!r) s.tools.set(index, (r = new StreamRedactor()));
  return r;
}

/** What each redactor still holds, as a delta. */
function rest(s: ChoiceState): { content: string; tools: { index: number; arguments: string }[] } {
  const content = s.content.flush();
  const tools = [...s.tools].map(([index, r]) => ({ index, arguments: r.flush() })).filter((t) => t.arguments !== '');
  return { content, tools };
}

/** Appends held-back argument text to a chunk's tool-call deltas, adding a delta where needed. */
function mergeArguments(
  calls: readonly ToolCallDelta[],
  tails: readonly { index: number; arguments: string }[],
): ToolCallDelta[] {
  const merged = [...calls];
  for (const tail of tails) {
    const at = merged.findIndex((c) => c.index === tail.index);
    if (at < 0) merged.push({ index: tail.index, function: { arguments: tail.arguments } });
    else
      merged[at] = {
        ...merged[at]!,
        function: { ...merged[at]!.function, arguments: (merged[at]!.function?.arguments ?? '') + tail.arguments },
      };
  }
  return merged;
}
