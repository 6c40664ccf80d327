import { retryAfterSeconds, type DomainError } from '../errors/domain-error.js';

/**
 * The error the HTTP layer itself throws (authentication, rate limits, body validation) and what
 * every domain error becomes (httpErrorOf). The response writer turns it into the route's error
 * shape; anything else becomes a logged 500 without details.
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

export const notFound = (what: string): HttpError => new HttpError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (param: string, message: string): HttpError => new HttpError(409, 'CONFLICT', message, param);

export const rateLimited = (retryAfterSeconds: number): HttpError =>
  new HttpError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit exceeded; retry after ${retryAfterSeconds} s`, undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** The gateway's own store refused for throughput (DynamoDB throttling): worth a retry shortly. */
export const storeBusy = (): HttpError =>
  new HttpError(503, 'SERVICE_UNAVAILABLE', 'The gateway is busy; retry after 1 s', undefined, { 'Retry-After': '1' });

/**
 * The one translation of a domain's failure into HTTP: its domain's table says the status, the
 * code, the text and the field; a retry delay becomes `Retry-After` where the table says so.
 */
export function httpErrorOf(error: DomainError): HttpError {
  const answer = error.answer;
  const field = error.field ?? answer.field;
  const message = answer.message ?? `${answer.messagePrefix ?? ''}${error.message}`;
  const delayMs = answer.retryAfter ? (error.retryAfterMs ?? answer.retryAfter.defaultMs) : undefined;
  if (delayMs === undefined) return new HttpError(answer.status, answer.code, message, field);
  const seconds = String(retryAfterSeconds(delayMs));
  const said = answer.retryAfter?.inMessage ? `${message}; retry after ${seconds} s` : message;
  return new HttpError(answer.status, answer.code, said, field, { 'Retry-After': seconds });
}
