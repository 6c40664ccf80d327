import { defineHandler } from '../http/define-handler.js';
import { answerResponsesCreate } from '../responses/responses-call.js';
import { responsesRequestValidator } from '../responses/responses-request.js';

/** POST /api/v1/responses: OpenAI's Responses API over the chat core (docs/interface.md §4.13). */
export const handler = defineHandler('responses-create', {
  body: responsesRequestValidator,
  handle: answerResponsesCreate,
});
