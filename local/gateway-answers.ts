import type { IncomingMessage, ServerResponse } from 'node:http';
import { gatewayResponse, gatewayResponseTemplate, type GatewayResponseType } from '../lib/gateway-responses.js';
import type { RouteSpec } from '../lib/routes.js';
import { errorBody } from '../lambdas/http/error-body.js';
import { HttpError } from '../lambdas/http/errors.js';

/**
 * The answers the cloud gives before a function runs, given here by the laptop's gateway:
 * API Gateway's customised gateway responses (lib/gateway-responses.ts) and Lambda's refusal of
 * an oversized event, each with the headers the cloud would send.
 */

/** A gateway response as the stack configures it; only fixed-message types can be rendered here. */
export function sendGatewayResponse(
  req: IncomingMessage,
  res: ServerResponse,
  type: GatewayResponseType,
  cors: Readonly<Record<string, string>>,
): void {
  const spec = gatewayResponse(type);
  if (spec.status === undefined || spec.message === undefined) {
    throw new Error(`gateway response ${type} depends on API Gateway's own status or message`);
  }
  const headers = resolveHeaders(req, { ...cors, ...spec.headers });
  res.writeHead(spec.status, { 'Content-Type': 'application/json', ...headers }).end(gatewayResponseTemplate(spec));
}

/** Lambda refuses an invocation whose event is larger than this (synchronous invocations). */
export const LAMBDA_MAX_EVENT_BYTES = 6 * 1024 * 1024;

/** 413 in the route's own error style, as its handler would answer. */
export function sendEventTooLarge(
  req: IncomingMessage,
  res: ServerResponse,
  route: RouteSpec,
  limit: number,
  cors: Readonly<Record<string, string>>,
): void {
  const error = new HttpError(
    413,
    'PAYLOAD_TOO_LARGE',
    `Request too large: with its headers it exceeds the ${limit}-byte payload limit of a Lambda invocation`,
  );
  const headers = resolveHeaders(req, cors);
  res
    .writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify(errorBody(route.errorStyle, error)));
}

/**
 * API Gateway's header notation: `'literal'`, or `method.request.header.<Name>` for a request
 * header (left out when the request has none).
 */
function resolveHeaders(req: IncomingMessage, mapped: Readonly<Record<string, string>>): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, source] of Object.entries(mapped)) {
    const literal = /^'(.*)'$/.exec(source);
    const fromRequest = /^method\.request\.header\.(.+)$/.exec(source);
    const value = literal ? literal[1] : fromRequest ? req.headers[fromRequest[1]!.toLowerCase()] : undefined;
    if (typeof value === 'string' && value !== '') resolved[name] = value;
  }
  return resolved;
}
