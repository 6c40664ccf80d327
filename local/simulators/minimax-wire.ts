import { randomBytes } from 'node:crypto';
import type { SimExchange, SimResponse } from './harness.js';

/**
 * MiniMax's common envelope (docs/upstreams.md §6.1), shared by the speech, music and video routes
 * of the MiniMax fake: every JSON answer carries `base_resp {status_code, status_msg}` (0 is
 * success) and a `trace_id`, echoed in the `Trace-Id` header; business errors arrive inside
 * HTTP 200.
 */

/** The business codes of docs/upstreams.md §6.1 with MiniMax's messages, each also a named fault (`error:1002`). */
export const BUSINESS_CODES: Readonly<Record<string, string>> = Object.freeze({
  '1000': 'unknown error',
  '1001': 'request timeout',
  '1002': 'rate limit exceeded (RPM)',
  '1004': 'not authorized',
  '1008': 'insufficient balance',
  '1013': 'internal service error',
  '1024': 'internal error',
  '1026': 'input content is sensitive',
  '1027': 'output content is sensitive',
  '1033': 'system error',
  '1039': 'token limit exceeded (TPM)',
  '1041': 'connection limit exceeded',
  '1042': 'invisible character ratio exceeds the limit',
  '2013': 'invalid params',
  '2045': 'rate growth limit exceeded',
  '2049': 'invalid api key',
  '2056': 'usage limit exceeded',
});

/** The code an injected HTTP status carries in its body (the real statuses are unconfirmed). */
const CODE_OF_STATUS: Readonly<Record<number, number>> = { 401: 1004, 403: 1004, 429: 1002, 400: 2013 };

export const traceId = () => randomBytes(16).toString('hex');

/** A MiniMax JSON answer: `fields` plus `trace_id` and `base_resp`. */
export function minimaxAnswer(
  fields: Record<string, unknown>,
  code = 0,
  message = code === 0 ? 'success' : (BUSINESS_CODES[String(code)] ?? 'error'),
  status = 200,
): SimResponse {
  const trace = traceId();
  return {
    status,
    headers: { 'content-type': 'application/json', 'trace-id': trace },
    body: JSON.stringify({ ...fields, trace_id: trace, base_resp: { status_code: code, status_msg: message } }),
  };
}

/** A business error inside HTTP 200, `data` null as MiniMax sends it. */
export const businessError = (code: number, message?: string): SimResponse =>
  minimaxAnswer({ data: null }, code, message);

/** An injected real HTTP error; its body still carries a business code. */
export function httpError(status: number): SimResponse {
  const code = CODE_OF_STATUS[status] ?? 1000;
  return minimaxAnswer({}, code, `injected ${status}: ${BUSINESS_CODES[String(code)]}`, status);
}

/** The simulator's key and the group it belongs to (an optional `GroupId` must match it). */
export const SIM_GROUP_ID = 'sim-group';

/**
 * Bearer auth: no key is 1004 with MiniMax's login message; a key starting `bad`/`invalid`
 * (standing in for a key of the other region) is 2049; a `GroupId` query parameter that is
 * not the key's group is 1004 "token not match group". All inside HTTP 200, as MiniMax does.
 */
export function authenticateMinimax(x: SimExchange): SimResponse | undefined {
  const key = /^Bearer (.+)$/.exec(String(x.headers.authorization ?? ''))?.[1];
  if (!key) {
    return businessError(
      1004,
      "login fail: Please carry the API secret key in the 'Authorization' field of the request header",
    );
  }
  if (/^(bad|invalid)/.test(key)) return businessError(2049, 'invalid api key');
  const group = x.url.searchParams.get('GroupId');
  if (group !== null && group !== SIM_GROUP_ID) return businessError(1004, 'token not match group');
  return undefined;
}

export const namedBusinessErrors: Readonly<Record<string, () => SimResponse>> = Object.freeze(
  Object.fromEntries(Object.keys(BUSINESS_CODES).map((code) => [code, () => businessError(Number(code))])),
);
