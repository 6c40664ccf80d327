import type { SimExchange, SimResponse } from './harness.js';

/**
 * FASHN's API-level errors (docs/upstreams.md §7.5): `{error, message}` with no id or status. The
 * three 429s differ only by `error`, so each is also a named fault (`error:OutOfCredits`).
 */

export const fashnJson = (status: number, body: unknown, headers: Record<string, string> = {}): SimResponse => ({
  status,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const fashnError = (status: number, error: string, message: string): SimResponse =>
  fashnJson(status, { error, message });

const API_ERRORS: Readonly<Record<string, { readonly status: number; readonly message: string }>> = {
  BadRequest: { status: 400, message: 'Invalid request' },
  UnauthorizedAccess: { status: 401, message: 'Unauthorized: Invalid token' },
  NotFound: { status: 404, message: 'Not found' },
  RateLimitExceeded: { status: 429, message: 'Too many requests: rate limit exceeded' },
  ConcurrencyLimitExceeded: {
    status: 429,
    message: 'Too many concurrent predictions: wait for running jobs to finish',
  },
  OutOfCredits: { status: 429, message: 'Out of credits: purchase more credits to continue' },
  InternalServerError: { status: 500, message: 'Internal server error' },
};

export const apiError = (name: keyof typeof API_ERRORS & string, message?: string): SimResponse => {
  const known = API_ERRORS[name]!;
  return fashnError(known.status, name, message ?? known.message);
};

export const namedApiErrors: Readonly<Record<string, () => SimResponse>> = Object.freeze(
  Object.fromEntries(Object.keys(API_ERRORS).map((name) => [name, () => apiError(name)])),
);

const NAME_OF_STATUS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'UnauthorizedAccess',
  403: 'UnauthorizedAccess',
  404: 'NotFound',
  429: 'RateLimitExceeded',
};

/** An injected HTTP status, with the name FASHN gives it (else InternalServerError). */
export function statusError(status: number): SimResponse {
  const name = NAME_OF_STATUS[status] ?? 'InternalServerError';
  return fashnError(status, name, `injected ${status}: ${API_ERRORS[name]!.message}`);
}

/** Bearer auth; a missing key, or one starting `bad`/`invalid`, is FASHN's 401. Output files need none. */
export function authenticateFashn(x: SimExchange): SimResponse | undefined {
  if (x.url.pathname.startsWith('/cdn/')) return undefined;
  const key = /^Bearer (.+)$/.exec(String(x.headers.authorization ?? ''))?.[1];
  if (!key || /^(bad|invalid)/.test(key)) return apiError('UnauthorizedAccess');
  return undefined;
}
