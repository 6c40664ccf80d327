/**
 * The one error type handlers and middlewares throw. The error-envelope middleware turns it
 * into the route's error shape; anything else becomes a logged 500 without details.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The request field at fault, for 400s: clients fix their input by it. */
    readonly param?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (param: string, message: string): HttpError =>
  new HttpError(400, 'BAD_REQUEST', message, param);

export const unauthorized = (
  message = 'Missing credentials: send Authorization: Bearer <key> or X-API-Key',
): HttpError => new HttpError(401, 'UNAUTHORIZED', message);

export const invalidCredential = (message = 'Invalid API key'): HttpError =>
  new HttpError(401, 'INVALID_API_KEY', message);

export const forbidden = (message: string): HttpError => new HttpError(403, 'FORBIDDEN', message);

export const notFound = (what: string): HttpError => new HttpError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (param: string, message: string): HttpError => new HttpError(409, 'CONFLICT', message, param);

export const rateLimited = (retryAfterSeconds: number): HttpError =>
  new HttpError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit exceeded; retry after ${retryAfterSeconds} s`, undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** A wait as `Retry-After` gives it: whole seconds, rounded up, at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** The gateway's own store refused for throughput (DynamoDB throttling): worth a retry shortly. */
export const storeBusy = (): HttpError =>
  new HttpError(503, 'SERVICE_UNAVAILABLE', 'The gateway is busy; retry after 1 s', undefined, { 'Retry-After': '1' });
