import { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { DIMENSION } from './metric-names.js';
import { inSpan, tracer } from './tracer.js';

/**
 * Span attributes of a model call, as the OpenTelemetry GenAI semantic conventions name them
 * (v1.37 and later: `gen_ai.provider.name`, which replaced `gen_ai.system`). The provider and
 * model are the metrics' own dimensions (metric-names.ts), so a trace and a metric series of one
 * call carry the same values. Only figures and names: never a prompt, an answer or a key.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  provider: DIMENSION.provider,
  requestModel: DIMENSION.model,
  temperature: 'gen_ai.request.temperature',
  maxTokens: 'gen_ai.request.max_tokens',
  topP: 'gen_ai.request.top_p',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  serverAddress: 'server.address',
  errorType: 'error.type',
} as const;

/** One upstream model call as it is asked for. */
export interface ModelCall {
  /** The gateway's provider id, as the metrics file it. */
  readonly provider: string;
  /** The provider's own model id, as sent upstream. */
  readonly model: string;
  /** The upstream's host name (never its URL: a base URL could carry credentials). */
  readonly serverAddress?: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly topP?: number;
}

/** What the upstream told of its answer, as far as it got. */
export interface ModelAnswer {
  readonly responseModel?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly finishReasons?: readonly string[];
}

/** A model call's span: it ends once, with the first of these that is called. */
export interface ModelCallSpan {
  /** Runs `work` with the span active (the HTTP request's own span, where one is made, is its child). */
  run<T>(work: () => T): T;
  answered(answer: ModelAnswer): void;
  /** `errorType`: a low-cardinality name of what failed (`timeout`, `rate_limit`, ...). */
  failed(errorType: string, answer?: ModelAnswer): void;
  /** The caller stopped reading an answer still coming (it left, or a guardrail ended the stream). */
  abandoned(answer: ModelAnswer): void;
}

/**
 * Starts the span of one `chat` call to `model` (span name `chat {model}`, kind client), or
 * returns undefined when nothing records it: an untraced call then costs a no-op span and
 * nothing more (`describe`, which reads the call's figures, is not even called).
 */
export function startModelCall(model: string, describe: () => ModelCall): ModelCallSpan | undefined {
  const span = tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return undefined;
  const call = describe();
  const attributes: Attributes = {
    [GEN_AI.operationName]: 'chat',
    [GEN_AI.provider]: call.provider,
    [GEN_AI.requestModel]: call.model,
  };
  if (call.serverAddress !== undefined) attributes[GEN_AI.serverAddress] = call.serverAddress;
  if (call.temperature !== undefined) attributes[GEN_AI.temperature] = call.temperature;
  if (call.maxTokens !== undefined) attributes[GEN_AI.maxTokens] = call.maxTokens;
  if (call.topP !== undefined) attributes[GEN_AI.topP] = call.topP;
  span.setAttributes(attributes);
  return new RecordedModelCall(span);
}

class RecordedModelCall implements ModelCallSpan {
  #ended = false;

  constructor(private readonly span: Span) {}

  run<T>(work: () => T): T {
    return inSpan(this.span, work);
  }

  answered(answer: ModelAnswer): void {
    this.#end(answer);
  }

  failed(errorType: string, answer: ModelAnswer = {}): void {
    if (this.#ended) return;
    this.span.setAttribute(GEN_AI.errorType, errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.#end(answer);
  }

  abandoned(answer: ModelAnswer): void {
    this.#end(answer);
  }

  #end(answer: ModelAnswer): void {
    if (this.#ended) return;
    this.#ended = true;
    const attributes: Attributes = {};
    if (answer.responseModel) attributes[GEN_AI.responseModel] = answer.responseModel;
    if (answer.inputTokens !== undefined) attributes[GEN_AI.inputTokens] = answer.inputTokens;
    if (answer.outputTokens !== undefined) attributes[GEN_AI.outputTokens] = answer.outputTokens;
    if (answer.finishReasons?.length) attributes[GEN_AI.finishReasons] = [...answer.finishReasons];
    this.span.setAttributes(attributes);
    this.span.end();
  }
}
