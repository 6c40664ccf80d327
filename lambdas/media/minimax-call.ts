import { parseJsonObject, readBoundedText } from '../providers/bounded-answer.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import { bodySnippet, UpstreamError, upstreamFailure, type FailureKind } from '../providers/upstream-failure.js';

/**
 * One call to a MiniMax endpoint (docs/upstreams.md §6.1), for the speech, music and video
 * adapters: Bearer auth, JSON in and out, and MiniMax's envelope read once here. Business
 * errors arrive inside HTTP 200 as a non-zero `base_resp.status_code`; they are classified
 * from the table below (data, not branches), as are real HTTP errors, into the gateway's
 * failure kinds, so callers decide retries and statuses without knowing MiniMax.
 */

export interface MinimaxRequest {
  readonly method: 'GET' | 'POST';
  /** Appended to the base URL (`/t2a_v2`, `/query/video_generation`, ...). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export interface MinimaxDeps {
  readonly send: (request: TransportRequest) => Promise<TransportResponse>;
  readonly signal: AbortSignal;
}

/** A successful answer: the body without its envelope, and MiniMax's trace id for logs. */
export interface MinimaxAnswer {
  readonly body: Readonly<Record<string, unknown>>;
  readonly traceId?: string;
}

/**
 * Answers are read whole and held in memory: hex audio of the longest speech (10,000
 * characters, about ten minutes at 256 kbps) is about 40 MB of text. Beyond this the answer
 * is refused as malformed rather than exhausting the function's memory.
 */
export const MAX_MINIMAX_ANSWER_BYTES = 96 * 1024 * 1024;

/** `base_resp.status_code` → the gateway's failure kind (docs/upstreams.md §6.1's classification column). */
const KIND_OF_CODE: Readonly<Record<number, FailureKind>> = {
  1000: 'overload',
  1001: 'timeout',
  1002: 'rate_limit',
  1004: 'auth',
  1008: 'quota',
  1013: 'overload',
  1024: 'overload',
  1026: 'content_filter',
  1027: 'content_filter',
  1028: 'quota',
  1030: 'quota',
  1033: 'overload',
  1039: 'rate_limit',
  1041: 'rate_limit',
  1042: 'bad_request',
  2013: 'bad_request',
  2038: 'auth',
  2045: 'rate_limit',
  2049: 'auth',
  2056: 'quota',
  2061: 'auth',
};

const KIND_OF_STATUS = (status: number): FailureKind =>
  status === 401 || status === 403
    ? 'auth'
    : status === 429
      ? 'rate_limit'
      : status === 402
        ? 'quota'
        : status >= 500
          ? 'overload'
          : 'bad_request';

export async function callMinimax(
  endpoint: ProviderEndpoint,
  request: MinimaxRequest,
  deps: MinimaxDeps,
): Promise<MinimaxAnswer> {
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const response = await deps.send({
    url: `${endpoint.baseUrl}${request.path}${query}`,
    method: request.method,
    headers: {
      authorization: `Bearer ${endpoint.apiKey}`,
      accept: 'application/json',
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: deps.signal,
  });
  return readMinimaxEnvelope(response.status, await boundedText(response), response.headers.get('trace-id'));
}

/**
 * One MiniMax answer read against its envelope: the body, or the UpstreamError its HTTP status
 * or `base_resp.status_code` classifies. Also reads each event of a streamed answer, whose
 * `base_resp` reports a failure mid-stream the same way.
 */
export function readMinimaxEnvelope(status: number, text: string, traceHeader?: string | null): MinimaxAnswer {
  const body = parseJsonObject(text);
  const traceId = traceHeader ?? stringField(body, 'trace_id');
  const baseResp = body?.['base_resp'] as { status_code?: unknown; status_msg?: unknown } | undefined;
  const code = typeof baseResp?.status_code === 'number' ? baseResp.status_code : undefined;
  if (status < 200 || status > 299) {
    throw failure(KIND_OF_STATUS(status), status, code, baseResp?.status_msg ?? bodySnippet(text));
  }
  if (body === undefined || code === undefined) {
    throw failure('malformed', status, undefined, `unreadable MiniMax answer: ${bodySnippet(text)}`);
  }
  if (code !== 0) throw failure(KIND_OF_CODE[code] ?? 'overload', status, code, baseResp?.status_msg);
  return { body, ...(traceId ? { traceId } : {}) };
}

function failure(kind: FailureKind, status: number, code: number | undefined, message: unknown): UpstreamError {
  const text = typeof message === 'string' && message ? message : 'no message';
  return new UpstreamError(
    upstreamFailure(kind, `MiniMax ${code === undefined ? `HTTP ${status}` : `error ${code}`}: ${text}`, {
      status,
      ...(code === undefined ? {} : { providerCode: String(code) }),
    }),
  );
}

/** The whole answer as text, refused as malformed beyond MAX_MINIMAX_ANSWER_BYTES. */
export function boundedText(response: TransportResponse): Promise<string> {
  return readBoundedText(
    response.body,
    MAX_MINIMAX_ANSWER_BYTES,
    () => new UpstreamError(upstreamFailure('malformed', `MiniMax answer over ${MAX_MINIMAX_ANSWER_BYTES} bytes`)),
  );
}

const stringField = (body: Record<string, unknown> | undefined, name: string): string | undefined =>
  typeof body?.[name] === 'string' ? body[name] : undefined;
