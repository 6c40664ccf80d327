import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why a Responses request was refused, in its own terms (the chat core's failures stay
 * ChatErrors and answer as chat completions' do). The table says how HTTP answers each kind.
 */
export type ResponsesErrorKind =
  /** The caller's input is wrong; `field` names what to fix. */
  | 'invalid_request'
  /** `previous_response_id` names no stored response of this account (unknown, expired, deleted, another's). */
  | 'previous_response_not_found'
  /** GET or DELETE named no stored response of this account. */
  | 'response_not_found';

/** How HTTP answers each kind (docs/interface.md §4.13 and §7). */
export const RESPONSES_ERROR_ANSWERS: ErrorAnswers<ResponsesErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  // OpenAI answers 400 here too (`previous_response_not_found`, param `previous_response_id`).
  previous_response_not_found: { status: 400, code: 'previous_response_not_found', field: 'previous_response_id' },
  response_not_found: { status: 404, code: 'NOT_FOUND', field: 'id' },
};

export class ResponsesError extends domainErrorClass('ResponsesError', RESPONSES_ERROR_ANSWERS) {}

export const invalidResponsesRequest = (field: string, message: string): ResponsesError =>
  new ResponsesError('invalid_request', message, { field });
