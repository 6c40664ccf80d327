import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why an embeddings request was refused or failed, in the core's terms: no status codes. The
 * table says how HTTP answers each kind (docs/interface.md §4.12, §7).
 */
export type EmbeddingsErrorKind =
  /** The caller's input is wrong (an upstream's refusal of it too); `field` names what to fix. */
  | 'invalid_request'
  /** Every route was rate limiting; `retryAfterMs` when one said. */
  | 'rate_limited'
  /** No route could answer: none configured, or each failed. */
  | 'unavailable';

export const EMBEDDINGS_ERROR_ANSWERS: ErrorAnswers<EmbeddingsErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: { defaultMs: 1000 } },
  unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
};

export class EmbeddingsError extends domainErrorClass('EmbeddingsError', EMBEDDINGS_ERROR_ANSWERS) {}

export const invalidEmbeddings = (field: string, message: string): EmbeddingsError =>
  new EmbeddingsError('invalid_request', message, { field });
