import type { ErrorStyle } from '../../lib/routes.js';
import type { HttpError } from './errors.js';

/** OpenAI SDKs read `error.type`; these are the types they know for each status. */
const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'service_unavailable',
};

/** The body of an error response in the route's style (docs/interface.md §2.14 and §7). */
export function errorBody(style: ErrorStyle, error: HttpError): unknown {
  if (style === 'openai') {
    return {
      error: {
        message: error.message,
        type: OPENAI_TYPES[error.status] ?? 'api_error',
        code: error.code,
        param: error.param ?? null,
      },
    };
  }
  return {
    success: false,
    error: { code: error.code, message: error.message, ...(error.param ? { field: error.param } : {}) },
  };
}
