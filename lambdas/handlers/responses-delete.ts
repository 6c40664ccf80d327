import { defineHandler } from '../http/define-handler.js';
import { answerResponsesDelete } from '../responses/responses-call.js';

/** DELETE /api/v1/responses/{id}: forgets a stored response of the caller's account. */
export const handler = defineHandler('responses-delete', { handle: answerResponsesDelete });
