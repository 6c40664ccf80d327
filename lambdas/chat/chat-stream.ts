import type { ChatCompletionChunk, ChatMessage } from '../providers/chat-types.js';
import { UpstreamError, type UpstreamFailure } from '../providers/upstream-failure.js';
import { ChatError } from './chat-errors.js';
import { estimateTokens, type Meter, type MeteredUsage } from '../usage/metering.js';
import type { RoutedStream } from './router.js';
import type { AnswerStreamGuard } from './guardrails/stream-guard.js';
import { TurnBudget } from './turn-budget.js';

/**
 * Work relayed between event-loop turns: a chunk counts one, plus one per KiB of its text, so a
 * turn comes at least every 64 small chunks (a few milliseconds) or 64 KiB of text.
 */
export const CHUNKS_PER_TURN = 64;
const TEXT_PER_UNIT = 1024;

export interface StreamShape {
  readonly id: string;
  readonly created: number;
  readonly includeUsage: boolean;
  readonly messages: readonly ChatMessage[];
  /** Answer guardrails applied as chunks pass (PII redaction), and checked at the end. */
  readonly guard?: AnswerStreamGuard;
  /** The call's signal: tells a caller that left from a failure the caller should hear of. */
  readonly signal: AbortSignal;
  /** True when the signal ended because the call ran out of time, not because the caller left. */
  readonly deadlineReached: () => boolean;
  /** The router's clock: the attempt's duration is measured on it. */
  readonly now: () => number;
}

/**
 * Where a stream attempt is, as the caller sees it:
 *
 *   waiting ──first chunk out──▶ streaming ──upstream ended──▶ checking ──▶ completed | blocked
 *      └──────────────┴──────────────┴──▶ failed | client_closed
 *
 * `checking`: the upstream finished, so the attempt is already settled as `ok`; what remains is
 * the guard's held-back text, its final check and the usage chunk. A caller leaving then ends in
 * `client_closed` with the ledger still saying `ok`: the upstream had answered in full.
 */
export type StreamState = 'waiting' | 'streaming' | 'checking' | 'completed' | 'blocked' | 'failed' | 'client_closed';

/** How the upstream attempt ended, as its one ledger entry records it. */
export type StreamOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'client_closed' }
  | { readonly kind: 'failed'; readonly failure: UpstreamFailure };

const DONE: IteratorResult<ChatCompletionChunk> = { done: true, value: undefined };

/**
 * The caller's chunks for a committed upstream stream: stamped with one id, one model and
 * `role` on the first; the usage chunk when asked for. A failure after this point is thrown as a
 * ChatError (`upstream_stream_failed`, or the guardrail's kind) for the transport to end the
 * stream with, never a silent truncation; the caller leaving rethrows its abort.
 *
 * The attempt is metered by `settle` alone, and only its first call counts, so however the stream
 * ends (the caller leaving at any point included) the ledger has exactly one entry for it. Nothing
 * here is cached: streams never are (docs/interface.md), whatever the answer holds.
 */
export class StreamAttempt implements AsyncIterableIterator<ChatCompletionChunk> {
  #state: StreamState = 'waiting';
  #settled: StreamOutcome | undefined;
  /** What went out (redacted), for the estimate when the provider reports no usage. */
  #streamedText = '';
  #delivered: string[] = [];
  #headAt = 0;
  /** A finishing chunk whose choices' held-back text went out first; it follows on the next pull. */
  #finishing: ChatCompletionChunk | undefined;
  /** The last upstream chunk's work, spent when the caller asks for more: turns fall between chunks it took. */
  #owed = 0;
  readonly #turns = new TurnBudget(CHUNKS_PER_TURN);
  /** The pull in progress: leaving waits for it, as an async generator's return would. */
  #pulling: Promise<unknown> | undefined;

  constructor(
    private readonly routed: RoutedStream,
    private readonly shape: StreamShape,
    private readonly meter: Meter,
  ) {}

  get state(): StreamState {
    return this.#state;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ChatCompletionChunk>> {
    const pull = this.#next();
    this.#pulling = pull;
    return pull;
  }

  /** The caller stopped reading (it left, or broke out of its loop). */
  async return(): Promise<IteratorResult<ChatCompletionChunk>> {
    await this.#pulling?.then(noop, noop);
    if (isOpen(this.#state)) await this.#end('client_closed', { kind: 'client_closed' });
    return DONE;
  }

  /**
   * Meters the attempt with this outcome: the only place that does, and only the first call
   * counts (false after it), so every way the stream ends may settle without counting twice.
   */
  settle(outcome: StreamOutcome): boolean {
    if (this.#settled) return false;
    this.#settled = outcome;
    const { routed, shape } = this;
    this.meter.attempt(
      {
        target: routed.target,
        durationMs: shape.now() - routed.startedAt,
        firstTokenMs: routed.firstTokenAt - routed.startedAt,
        usage: routed.usage(),
        failure: outcome.kind === 'failed' ? outcome.failure : undefined,
        outcome: outcome.kind === 'client_closed' ? 'client_closed' : undefined,
      },
      () => estimate(shape.messages, this.#streamedText),
    );
    return true;
  }

  async #next(): Promise<IteratorResult<ChatCompletionChunk>> {
    try {
      if (this.#state === 'waiting' || this.#state === 'streaming') return await this.#relay();
      if (this.#state === 'checking') return await this.#check();
      return DONE;
    } catch (error) {
      throw await this.#fail(error);
    }
  }

  /** The next upstream chunk out, through the guard; at the upstream's end, on to checking. */
  async #relay(): Promise<IteratorResult<ChatCompletionChunk>> {
    const guard = this.shape.guard;
    if (this.#finishing) {
      const finishing = this.#finishing;
      this.#finishing = undefined;
      return this.#out(guard!.transform(finishing));
    }
    const chunk = await this.#read();
    if (!chunk) return this.#upstreamEnded();
    if (!guard) return this.#out(chunk);
    // Redaction holds back a possible match's start; it is released before the finish chunk.
    if (chunk.choices.some((choice) => choice.finish_reason !== null)) {
      const held = guard.flush();
      if (held) {
        this.#finishing = chunk;
        return this.#out(held);
      }
    }
    return this.#out(guard.transform(chunk));
  }

  /** The head first, then the rest (upstream chunks without choices are not relayed). */
  async #read(): Promise<ChatCompletionChunk | undefined> {
    const { head, rest } = this.routed;
    if (this.#headAt < head.length) return head[this.#headAt++];
    for (;;) {
      const turn = this.#owed > 0 ? this.#turns.spend(this.#owed) : undefined;
      this.#owed = 0;
      if (turn) await turn;
      const next = await rest.next();
      if (next.done) return undefined;
      this.#owed = 1 + Math.floor(textLength(next.value) / TEXT_PER_UNIT);
      if (next.value.choices.length > 0) return next.value;
    }
  }

  /** streaming → checking: the upstream answered in full, so the attempt is settled now. */
  async #upstreamEnded(): Promise<IteratorResult<ChatCompletionChunk>> {
    this.#state = 'checking';
    this.settle({ kind: 'ok' });
    const held = this.shape.guard?.flush();
    if (held) return this.#out(held);
    return this.#check();
  }

  /** checking → completed | blocked: the guard's final check, then the usage chunk. */
  async #check(): Promise<IteratorResult<ChatCompletionChunk>> {
    const { guard, includeUsage } = this.shape;
    const blocked = guard ? (await guard.finalCheck()).error : undefined;
    if (blocked) {
      this.#state = 'blocked';
      await this.#closeUpstream();
      throw blocked;
    }
    this.#state = 'completed';
    await this.#closeUpstream();
    if (!includeUsage) return DONE;
    return this.#chunk([], {
      usage: this.routed.usage() ?? estimatedUsage(this.shape.messages, this.#streamedText),
    });
  }

  /** → failed | client_closed; what the caller is thrown. */
  async #fail(error: unknown): Promise<unknown> {
    // A stream that has ended already (the guard's verdict) passes its error on as it is.
    if (!isOpen(this.#state)) return error;
    if (error instanceof UpstreamError) {
      await this.#end('failed', { kind: 'failed', failure: error.failure });
      return new ChatError(
        'upstream_stream_failed',
        `The model stream failed after it started (${error.failure.kind}): ${error.failure.message}`,
      );
    }
    if (this.shape.deadlineReached()) {
      await this.#end('failed', {
        kind: 'failed',
        failure: { kind: 'timeout', message: 'the function reached its time limit' },
      });
      return new ChatError(
        'upstream_stream_failed',
        'The answer took longer than this endpoint may run; it was cut at the time limit',
      );
    }
    // The caller left (nobody to tell), or our own fault (the transport reports it).
    if (this.shape.signal.aborted) await this.#end('client_closed', { kind: 'client_closed' });
    else
      await this.#end('failed', {
        kind: 'failed',
        failure: { kind: 'malformed', message: 'internal error while streaming' },
      });
    return error;
  }

  async #end(state: 'failed' | 'client_closed', outcome: StreamOutcome): Promise<void> {
    this.#state = state;
    this.settle(outcome);
    await this.#closeUpstream();
  }

  /** Frees the upstream connection; after an upstream that ended by itself, a no-op. */
  async #closeUpstream(): Promise<void> {
    await this.routed.rest.return?.();
  }

  /** waiting → streaming with the first chunk out, which carries the assistant's role. */
  /** The text each choice delivered to the caller (after the guard), by choice index: a request's kept content. */
  get deliveredContent(): readonly string[] {
    return Array.from(this.#delivered, (text) => text ?? '');
  }

  #out(chunk: ChatCompletionChunk): IteratorResult<ChatCompletionChunk> {
    const first = this.#state === 'waiting';
    if (first) this.#state = 'streaming';
    const choices = chunk.choices.map((choice) => {
      if (choice.delta.content)
        this.#delivered[choice.index] = (this.#delivered[choice.index] ?? '') + choice.delta.content;
      this.#streamedText +=
        (choice.delta.content ?? '') +
        (choice.delta.tool_calls?.map((t) => t.function?.arguments ?? '').join('') ?? '');
      if (!first) return choice;
      return { ...choice, delta: { role: 'assistant' as const, ...choice.delta } };
    });
    return this.#chunk(choices, this.shape.includeUsage ? { usage: null } : {});
  }

  /** A chunk of this attempt's completion: its id, time and served model around `choices`. */
  #chunk(
    choices: ChatCompletionChunk['choices'],
    usage: Pick<ChatCompletionChunk, 'usage'>,
  ): IteratorResult<ChatCompletionChunk> {
    return {
      done: false,
      value: {
        id: this.shape.id,
        object: 'chat.completion.chunk',
        created: this.shape.created,
        model: this.routed.target.model,
        choices,
        ...usage,
      },
    };
  }
}

/** The attempt's chunks for the caller: see StreamAttempt. */
export function chatStreamChunks(routed: RoutedStream, shape: StreamShape, meter: Meter): StreamAttempt {
  return new StreamAttempt(routed, shape, meter);
}

const isOpen = (state: StreamState) => state === 'waiting' || state === 'streaming' || state === 'checking';

const noop = () => {};

function textLength(chunk: ChatCompletionChunk): number {
  let length = 0;
  for (const choice of chunk.choices) {
    length += choice.delta.content?.length ?? 0;
    for (const call of choice.delta.tool_calls ?? []) length += call.function?.arguments?.length ?? 0;
  }
  return length;
}

function estimate(messages: readonly ChatMessage[], streamed: string): MeteredUsage {
  return {
    promptTokens: estimateTokens(JSON.stringify(messages)),
    completionTokens: estimateTokens(streamed),
    estimated: true,
  };
}

function estimatedUsage(messages: readonly ChatMessage[], streamed: string) {
  const { promptTokens, completionTokens } = estimate(messages, streamed);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
