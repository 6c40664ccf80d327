import { defineHandler } from '../http/define-handler.js';
import { answerFashionRun } from '../fashion/fashion-call.js';
import { fashionRequestValidator, type FashionRequestBody } from '../fashion/fashion-schema.js';

/** POST /api/v1/fashion/run: submits a fashion prediction through the platform's FASHN key. */
export const handler = defineHandler<FashionRequestBody>('fashion-run', {
  body: fashionRequestValidator,
  handle: answerFashionRun,
});
