import type { SimResponse } from './harness.js';
import type { ScriptTurn } from './script-types.js';

/**
 * The Gemini simulator's answer side: a ScriptTurn as a GenerateContentResponse (whole, and as
 * the stream's events), and Google's error envelope (docs/upstreams.md §3.4–§3.6).
 */

export type Json = Record<string, unknown>;

const FINISH_REASONS: Readonly<Record<ScriptTurn['finishReason'], string>> = {
  stop: 'STOP',
  // Gemini has no tool-call reason: a calling turn ends with STOP.
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

/** Reasons under which the candidate keeps its content; the others end without (the rest was withheld). */
const CONTENTFUL: ReadonlySet<string> = new Set(['STOP', 'MAX_TOKENS']);

const HARM_CATEGORIES = [
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
];

export interface AnswerOptions {
  readonly model: string;
  readonly responseId: string;
  /** A Gemini finishReason forced by `[sim:finish=UPPER_CASE]`, overriding the script's. */
  readonly finishReason?: string;
  /** `[sim:block=REASON]`: the prompt is blocked, no candidate at all. */
  readonly blockReason?: string;
  /** `[sim:no_call_ids]`: functionCall parts without `id`, as older models answer. */
  readonly omitCallIds?: boolean;
}

export interface Answer {
  /** The generateContent body. */
  readonly whole: Json;
  /** The stream's events: only new text in each, partial usage until the last, which finishes. */
  readonly events: readonly Json[];
}

export function buildAnswer(turn: ScriptTurn, options: AnswerOptions): Answer {
  const envelope = { modelVersion: options.model, responseId: options.responseId };
  // Cached content is part of the prompt count; thoughts are not part of the candidates' but of
  // the total (docs/upstreams.md §3.4). Gemini reports no per-request cache writes.
  const { cacheRead, reasoning } = turn.parts;
  const fullUsage = {
    promptTokenCount: turn.promptTokens,
    candidatesTokenCount: turn.completionTokens,
    totalTokenCount: turn.promptTokens + turn.completionTokens + reasoning,
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: turn.promptTokens }],
    ...(cacheRead > 0 ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cacheRead }] } : {}),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
  };
  const partialUsage = { promptTokenCount: turn.promptTokens, totalTokenCount: turn.promptTokens };

  if (options.blockReason !== undefined) {
    const blocked = {
      promptFeedback: { blockReason: options.blockReason, safetyRatings: safetyRatings(true) },
      usageMetadata: partialUsage,
      ...envelope,
    };
    return { whole: blocked, events: [blocked] };
  }

  const finishReason = options.finishReason ?? FINISH_REASONS[turn.finishReason];
  const keeps = CONTENTFUL.has(finishReason);
  const candidate = (parts: Json[] | undefined, finish: boolean): Json => ({
    ...(parts && parts.length > 0 ? { content: { parts, role: 'model' } } : {}),
    ...(finish ? { finishReason } : {}),
    // Current models only rate when a rating mattered.
    ...(finish && finishReason === 'SAFETY' ? { safetyRatings: safetyRatings(true) } : {}),
    index: 0,
  });
  const response = (parts: Json[] | undefined, finish: boolean): Json => ({
    candidates: [candidate(parts, finish)],
    usageMetadata: finish ? fullUsage : partialUsage,
    ...envelope,
  });

  if (turn.toolCalls.length > 0 && finishReason === 'STOP') {
    const parts = turn.toolCalls.map((call, i) => ({
      functionCall: { name: call.name, args: call.arguments, ...(options.omitCallIds ? {} : { id: call.id }) },
      // Thinking models sign their calls; the signature must be echoed back in history.
      ...(i === 0 ? { thoughtSignature: Buffer.from(`sim-signature-${call.id}`).toString('base64') } : {}),
    }));
    const whole = response(parts, true);
    return { whole, events: [whole] };
  }

  const whole = response(keeps && turn.text !== '' ? [{ text: turn.text }] : undefined, true);
  const pieces = turn.pieces;
  const events = pieces.slice(0, -1).map((piece) => response([{ text: piece }], false));
  const last = pieces[pieces.length - 1];
  events.push(response(keeps && last !== undefined ? [{ text: last }] : undefined, true));
  return { whole, events };
}

function safetyRatings(blocked: boolean): Json[] {
  return HARM_CATEGORIES.map((category, i) => ({
    category,
    probability: blocked && i === 1 ? 'HIGH' : 'NEGLIGIBLE',
    ...(blocked && i === 1 ? { blocked: true } : {}),
  }));
}

/** The JSON array the method answers without `alt=sse` (pretty-printed, as Google sends it). */
export function jsonArray(events: readonly Json[]): string {
  return `[${events.map((event) => JSON.stringify(event, null, 2)).join('\n,\r\n')}\n]`;
}

/** HTTP status → [google.rpc status, message]; `{model}` is filled in. */
const ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: [
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  ],
  403: ['PERMISSION_DENIED', 'The caller does not have permission'],
  404: [
    'NOT_FOUND',
    'models/{model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
  ],
  409: ['ABORTED', 'The operation was aborted.'],
  429: [
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. Please retry in 2s.',
  ],
  499: ['CANCELLED', 'The operation was cancelled.'],
  500: [
    'INTERNAL',
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  ],
  501: ['UNIMPLEMENTED', 'Method not implemented.'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
};

export const STATUS_BY_RPC: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(ERRORS).map(([code, [status]]) => [status, Number(code)]),
);

/** The retry delay the simulator asks for on 429, in the body and (per the harness rule) in retry-after. */
export const RETRY_DELAY_SECONDS = 2;

export function errorEnvelope(code: number, model: string | undefined, message?: string, details?: Json[]): Json {
  const [status, template] =
    ERRORS[code] ?? (code >= 500 ? ['INTERNAL', ERRORS[500]![1]] : ['INVALID_ARGUMENT', ERRORS[400]![1]]);
  const list = details ?? defaultDetails(code, model);
  return {
    error: {
      code,
      message: message ?? template.replace('{model}', model ?? 'unknown'),
      status,
      ...(list.length > 0 ? { details: list } : {}),
    },
  };
}

function defaultDetails(code: number, model: string | undefined): Json[] {
  if (code === 429) {
    return [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: model ?? 'unknown' },
            quotaValue: '10',
          },
        ],
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [
          {
            description: 'Learn more about Gemini API quotas',
            url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${RETRY_DELAY_SECONDS}s` },
    ];
  }
  if (code === 401)
    return [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com' },
    ];
  return [];
}

export const API_KEY_INVALID: Json = errorEnvelope(400, undefined, 'API key not valid. Please pass a valid API key.', [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'API_KEY_INVALID',
    domain: 'googleapis.com',
    metadata: { service: 'generativelanguage.googleapis.com' },
  },
  {
    '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
    locale: 'en-US',
    message: 'API key not valid. Please pass a valid API key.',
  },
]);

export const UNREGISTERED_CALLER: Json = errorEnvelope(
  403,
  undefined,
  "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  [],
);

export function badRequest(description: string): Json {
  return errorEnvelope(400, undefined, description, [
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description }] },
  ]);
}

const JSON_TYPE = 'application/json; charset=UTF-8';

/** An error as an HTTP answer; `wrapped` for the array stream form, which wraps it as `[{"error":…}]`. */
export function errorResponse(envelope: Json, wrapped: boolean): SimResponse {
  const code = (envelope['error'] as { code: number }).code;
  const headers: Record<string, string> = { 'Content-Type': JSON_TYPE };
  if (code === 429) headers['retry-after'] = String(RETRY_DELAY_SECONDS);
  return { status: code, headers, body: JSON.stringify(wrapped ? [envelope] : envelope, null, 2) };
}

/** What Google's front end answers for a 502: an HTML page, not the JSON envelope. */
export function frontEndPage(status: number): SimResponse {
  return {
    status,
    headers: { 'Content-Type': 'text/html; charset=UTF-8' },
    body: `<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error ${status} (Server Error)!!1</title><p><b>${status}.</b> <ins>That’s an error.</ins><p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds. <ins>That’s all we know.</ins></html>`,
  };
}

export const OK_JSON_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': JSON_TYPE };
