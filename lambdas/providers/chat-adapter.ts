import type { ProviderId, WireFormat } from '../catalog/model-catalog.js';
import type { SseEvent } from './sse-parser.js';
import type { HeaderReader, UpstreamFailure } from './upstream-failure.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from './chat-types.js';
import type { AwsSigning } from './bedrock/bedrock-signing.js';

/** Where one attempt goes: the provider's base URL and key come from configuration. */
export interface UpstreamTarget {
  readonly provider: ProviderId;
  /** Without a trailing slash, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The provider's own model id. */
  readonly model: string;
  /** Providers called with the function role's credentials instead of a key (Bedrock): region and credentials. */
  readonly signing?: AwsSigning;
}

export interface UpstreamCall {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Turns one upstream stream into canonical chunks. Chunks it returns carry deltas and finish
 * reasons only: the gateway stamps id, created and model, sends `role` on the first chunk it
 * forwards, and appends the usage chunk itself.
 */
export interface StreamTranslator {
  /** Throws UpstreamError for an in-band error event or an unreadable event. */
  onEvent(event: SseEvent): ChatCompletionChunk[];
  /**
   * The connection ended. Returns any last chunks; throws UpstreamError (`connection`) when the
   * stream ended before the provider's terminal marker, so a cut is never taken for an answer.
   */
  onEnd(): ChatCompletionChunk[];
  /** Token usage reported so far (providers report it at different points in the stream). */
  usage(): Usage | undefined;
}

/** Bytes of a streamed answer → the events the translator reads; throws UpstreamError on broken framing. */
export interface EventSource {
  push(chunk: Uint8Array | string): SseEvent[];
  end(): SseEvent[];
}

/**
 * One wire format. Provider differences are data and small transforms behind this interface;
 * nothing outside the adapters knows a provider's format.
 */
export interface ChatAdapter {
  readonly wireFormat: WireFormat;
  buildRequest(request: ChatRequest, target: UpstreamTarget, stream: boolean): UpstreamCall;
  /** A 2xx JSON body → completion; throws UpstreamError when it is unreadable or an in-band error. */
  parseResponse(body: unknown, target: UpstreamTarget): ChatCompletion;
  createStreamTranslator(target: UpstreamTarget): StreamTranslator;
  /** The stream's framing, when it is not Server-Sent Events (Bedrock's binary event stream). @default SseParser */
  createEventSource?(): EventSource;
  /** A non-2xx answer → what kind of failure it is, with the provider's retry hint. */
  classifyError(status: number, headers: HeaderReader, body: string, provider: ProviderId): UpstreamFailure;
}
