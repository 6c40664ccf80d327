import type { Validator } from '../../schema/compile.js';
import { parseJsonBody, validate } from '../validation.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Parses the JSON body and validates it; the handler receives the typed, defaulted value. */
export function bodyValidation<T>(validator: Validator<T>): GatewayMiddleware {
  return {
    before: (request) => {
      const call = requireCall(request);
      call.body = validate(validator, parseJsonBody(call.req.rawBody));
    },
  };
}
