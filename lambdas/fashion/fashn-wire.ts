import { parseJsonObject, readBoundedText } from '../providers/bounded-answer.js';
import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import { retryAfterFromHeaders, UpstreamError } from '../providers/upstream-failure.js';
import { FashionError, type FashionErrorKind } from './fashion-errors.js';
import type { FashionRequest } from './fashion-request.js';

/**
 * The FASHN adapter (docs/upstreams.md §7): `POST /run` and `GET /status/{id}` with Bearer auth.
 * API-level errors (`{error, message}`, docs/upstreams.md §7.5) are classified by their `error` name first (the
 * three 429s mean different things), then by status; a prediction that ran and failed is a
 * status, not an error.
 */

export interface FashnDeps {
  readonly send: (request: TransportRequest) => Promise<TransportResponse>;
  readonly signal: AbortSignal;
}

export type PredictionState = 'starting' | 'in_queue' | 'processing' | 'completed' | 'failed';

export interface PredictionError {
  readonly name: string;
  readonly message: string;
}

export interface PredictionStatus {
  readonly id: string;
  readonly status: PredictionState;
  /** Output URLs (CDN or `data:` URLs) once completed, else null. */
  readonly output: readonly string[] | null;
  readonly error: PredictionError | null;
  /** `x-fashn-credits-used` on a terminal status, when the upstream sent it. */
  readonly creditsUsed?: number;
}

/**
 * Base64 outputs are held in memory: four 4k PNGs as data URLs run to tens of MB. Beyond this
 * the answer is refused as unreadable rather than exhausting the function's memory.
 */
export const MAX_FASHN_ANSWER_BYTES = 64 * 1024 * 1024;
const MAX_OUTPUTS = 16;
const MAX_ERROR_TEXT = 500;

const KIND_OF_ERROR_NAME: Readonly<Record<string, FashionErrorKind>> = {
  BadRequest: 'upstream_rejected',
  UnauthorizedAccess: 'upstream_auth',
  NotFound: 'not_found',
  RateLimitExceeded: 'rate_limited',
  ConcurrencyLimitExceeded: 'concurrency_limited',
  OutOfCredits: 'out_of_credits',
  InternalServerError: 'upstream_failed',
};

const KIND_OF_STATUS: Readonly<Record<number, FashionErrorKind>> = {
  400: 'upstream_rejected',
  401: 'upstream_auth',
  403: 'upstream_auth',
  404: 'not_found',
  422: 'upstream_rejected',
  429: 'rate_limited',
};

/** Statuses outside the documented five (the SDK's `canceled`, `time_out`) end as failures with these names. */
const FAILED_AS: Readonly<Record<string, string>> = { canceled: 'Canceled', time_out: 'TimeOut' };
const STATES: ReadonlySet<string> = new Set(['starting', 'in_queue', 'processing', 'completed', 'failed']);
/** The upstream's two names for the same cause; the interface knows `ThirdPartyError` (docs/interface.md §7). */
const ERROR_NAME_ALIASES: Readonly<Record<string, string>> = { '3rdPartyProviderError': 'ThirdPartyError' };

/** Submits a prediction; the answer is the upstream's prediction id. */
export async function runPrediction(
  endpoint: ProviderEndpoint,
  request: FashionRequest,
  deps: FashnDeps & { readonly webhookUrl?: string },
): Promise<{ readonly predictionId: string }> {
  const query = deps.webhookUrl ? `?${new URLSearchParams({ webhook_url: deps.webhookUrl }).toString()}` : '';
  const { body } = await callFashn(endpoint, 'POST', `/run${query}`, deps, {
    model_name: request.model.name,
    inputs: request.inputs,
  });
  const id = body['id'];
  if (typeof id !== 'string' || id === '') throw unreadable('run answer without an id');
  return { predictionId: id };
}

export async function predictionStatus(
  endpoint: ProviderEndpoint,
  predictionId: string,
  deps: FashnDeps,
): Promise<PredictionStatus> {
  const { body, headers } = await callFashn(endpoint, 'GET', `/status/${encodeURIComponent(predictionId)}`, deps);
  const raw = typeof body['status'] === 'string' ? body['status'] : '';
  const failedAs = Object.hasOwn(FAILED_AS, raw) ? FAILED_AS[raw] : undefined;
  // Any other unknown status is still running: the poller's total time bounds it.
  const status: PredictionState = failedAs ? 'failed' : STATES.has(raw) ? (raw as PredictionState) : 'processing';
  const credits = Number(headers.get('x-fashn-credits-used') ?? Number.NaN);
  const terminal = status === 'completed' || status === 'failed';
  return {
    id: typeof body['id'] === 'string' ? body['id'] : predictionId,
    status,
    output: status === 'completed' ? outputOf(body['output']) : null,
    error: status === 'failed' ? errorOf(body['error'], failedAs) : null,
    ...(terminal && Number.isInteger(credits) && credits >= 0 ? { creditsUsed: credits } : {}),
  };
}

function outputOf(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length > MAX_OUTPUTS || !value.every((item) => typeof item === 'string')) {
    throw unreadable('completed prediction without a readable output list');
  }
  return value as string[];
}

function errorOf(value: unknown, failedAs: string | undefined): PredictionError {
  const error = (value ?? {}) as { name?: unknown; message?: unknown };
  const name = typeof error.name === 'string' && error.name ? error.name.slice(0, 64) : (failedAs ?? 'PipelineError');
  const message = typeof error.message === 'string' ? error.message.slice(0, MAX_ERROR_TEXT) : `prediction ${name}`;
  return { name: Object.hasOwn(ERROR_NAME_ALIASES, name) ? ERROR_NAME_ALIASES[name]! : name, message };
}

async function callFashn(
  endpoint: ProviderEndpoint,
  method: 'GET' | 'POST',
  path: string,
  deps: FashnDeps,
  body?: unknown,
): Promise<{ body: Record<string, unknown>; headers: TransportResponse['headers'] }> {
  let response: TransportResponse;
  let text: string;
  try {
    response = await deps.send({
      url: `${endpoint.baseUrl}${path}`,
      method,
      headers: {
        authorization: `Bearer ${endpoint.apiKey}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: deps.signal,
    });
    text = await readBoundedText(response.body, MAX_FASHN_ANSWER_BYTES, () =>
      unreadable(`answer over ${MAX_FASHN_ANSWER_BYTES} bytes`),
    );
  } catch (error) {
    if (error instanceof UpstreamError) throw new FashionError('upstream_failed', `FASHN: ${error.message}`);
    throw error;
  }
  const parsed = parseJsonObject(text);
  if (response.status < 200 || response.status > 299) throw apiError(response, parsed);
  if (!parsed) throw unreadable(`unreadable answer (HTTP ${response.status})`);
  return { body: parsed, headers: response.headers };
}

function apiError(response: TransportResponse, body: Record<string, unknown> | undefined): FashionError {
  const name = typeof body?.['error'] === 'string' ? body['error'] : undefined;
  const kind =
    (name !== undefined && Object.hasOwn(KIND_OF_ERROR_NAME, name) ? KIND_OF_ERROR_NAME[name] : undefined) ??
    KIND_OF_STATUS[response.status] ??
    'upstream_failed';
  const message = typeof body?.['message'] === 'string' ? body['message'].slice(0, MAX_ERROR_TEXT) : 'no message';
  const retryAfterMs = retryAfterFromHeaders(response.headers);
  return new FashionError(kind, `FASHN ${name ?? `HTTP ${response.status}`}: ${message}`, {
    status: response.status,
    ...(name === undefined ? {} : { upstreamError: name }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

const unreadable = (what: string) => new FashionError('upstream_failed', `FASHN: ${what}`);
