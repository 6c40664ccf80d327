import { corsHeaders } from '../cors.js';
import { errorBody } from '../error-body.js';
import { DomainError } from '../../errors/domain-error.js';
import { HttpError, httpErrorOf, storeBusy } from '../errors.js';
import { isThrottling } from '../../store/dynamodb-client.js';
import { logger, redact } from '../../config/logger.js';
import { callMetrics } from '../../observability/call-metrics.js';
import { publishMetrics } from '../../observability/metrics.js';
import { bare, type Reply } from '../reply.js';
import { responseMeta, withMeta } from '../response-meta.js';
import { toProxyResult, toStreamResult } from '../response-writer.js';
import type { CallState } from '../call.js';
import type { RouteSpec } from '../../../lib/routes.js';
import { callOf, type GatewayMiddleware } from './state.js';
import { endedByTimeout } from './request-context.js';

const HEARTBEAT_MS = 15_000;

/**
 * The one place responses are written: the handler's Reply (or the error) becomes a buffered
 * proxy result or a stream result, with the call's headers added. Also logs one line per call.
 */
export function responseWriter(route: RouteSpec): GatewayMiddleware {
  return {
    after: (request) => {
      const call = callOf(request)!;
      const reply = request.response as Reply;
      request.response = write(route, call, reply);
      recordCall(call, replyStatus(reply));
    },
    onError: (request) => {
      const call = callOf(request);
      const error = httpErrorOfFailure(request.error, call);
      const reply = bare(errorBody(route.errorStyle, error), error.status, { ...error.headers });
      request.response = write(route, call, reply);
      if (call) recordCall(call, error.status, error.status >= 500 ? undefined : error.code);
    },
  };
}

function write(route: RouteSpec, call: CallState | undefined, given: Reply) {
  const headers = call ? { ...call.responseHeaders, ...corsHeaders(call) } : {};
  const reply = route.envelopeMeta && call ? withCallMeta(given, call) : given;
  // A body still being produced (SSE frames, streamed audio) keeps the call's work alive until
  // it ends or the client leaves; finishing here would abort the upstream call feeding it.
  if (route.streaming && isProduced(reply)) {
    return toStreamResult(reply, headers, { heartbeatMs: HEARTBEAT_MS, onClose: call?.finish });
  }
  call?.finish();
  return route.streaming
    ? toStreamResult(reply, headers, { heartbeatMs: HEARTBEAT_MS })
    : toProxyResult(reply, headers);
}

function withCallMeta(reply: Reply, call: CallState): Reply {
  return reply.kind === 'json' ? { ...reply, body: withMeta(reply.body, responseMeta(call.requestId)) } : reply;
}

const isProduced = (reply: Reply) =>
  reply.kind === 'sse' || (reply.kind === 'binary' && !(reply.body instanceof Uint8Array));

/**
 * What any failure is answered with: the HTTP layer's own errors as they are, a domain's error
 * by its domain's table, DynamoDB throttling as a 503 to retry, anything else a logged 500.
 */
export function httpErrorOfFailure(error: unknown, call?: CallState): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return httpErrorOf(error);
  if (isThrottling(error)) {
    // Not a fault of the code: a partition over its rate. Alarms watch DynamoDB's own metrics.
    logger.warn('DynamoDB throttled the request', { requestId: call?.requestId, route: call?.route.id });
    return storeBusy();
  }
  if (call && endedByTimeout(call.signal) && isAbort(error, call.signal)) {
    // The function's own deadline cut an upstream call that the route had no answer for: the
    // upstream was too slow, not our code wrong (docs/interface.md §7: an upstream that failed).
    logger.warn('the function deadline cut the call', { requestId: call.requestId, route: call.route.id });
    return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The upstream did not answer in time; retry later');
  }
  logger.error('unhandled error', {
    requestId: call?.requestId,
    route: call?.route.id,
    error: redact(error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error)),
  });
  return new HttpError(500, 'INTERNAL_ERROR', 'Internal error; the request id identifies it in the logs');
}

/** An abort of the call's own signal, as fetch, the SDKs and timers report it. */
const isAbort = (error: unknown, signal: AbortSignal): boolean =>
  error === signal.reason || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'));

function replyStatus(reply: Reply): number {
  return reply.kind === 'sse' ? 200 : reply.status;
}

/** The call's metrics (requests, status class, duration by route) and its log line. */
function recordCall(call: CallState, status: number, code?: string): void {
  publishMetrics(callMetrics(call.route.id, status, Date.now() - call.startedAt.getTime()));
  logCall(call, status, code);
}

/**
 * One line per call. Successes are DEBUG: API Gateway's access log already records every
 * request, and a log write per request is a measurable share of the function's CPU. Refusals
 * are INFO, failures of ours are ERROR (logged where they happen).
 */
function logCall(call: CallState, status: number, code?: string): void {
  // Powertools levels: TRACE 6, DEBUG 8, INFO 12; skip building the line when it is not wanted.
  if (status < 400 && logger.level > 8) return;
  const principal = call.principal;
  const write = status < 400 ? logger.debug.bind(logger) : logger.info.bind(logger);
  write('request', {
    requestId: call.requestId,
    route: call.route.id,
    method: call.req.method,
    status,
    ...(code ? { code } : {}),
    durationMs: Date.now() - call.startedAt.getTime(),
    accountId: principal && principal.kind !== 'admin' ? principal.accountId : undefined,
    keyId: principal && 'keyId' in principal ? principal.keyId : undefined,
  });
}
