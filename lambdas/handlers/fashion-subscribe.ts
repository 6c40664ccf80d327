import { defineHandler } from '../http/define-handler.js';
import { answerFashionSubscribe } from '../fashion/fashion-call.js';
import { fashionRequestValidator } from '../fashion/fashion-schema.js';

/** POST /api/v1/fashion/subscribe: submits a fashion prediction and streams it for up to 2 minutes. */
export const handler = defineHandler('fashion-subscribe', {
  body: fashionRequestValidator,
  handle: answerFashionSubscribe,
});
