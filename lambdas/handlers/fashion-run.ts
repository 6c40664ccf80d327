import { defineHandler } from '../http/define-handler.js';
import { answerFashionRun } from '../fashion/fashion-call.js';
import { fashionRequestValidator } from '../fashion/fashion-schema.js';

/** POST /api/v1/fashion/run: submits a fashion prediction through the platform's FASHN key. */
export const handler = defineHandler('fashion-run', {
  body: fashionRequestValidator,
  handle: answerFashionRun,
});
