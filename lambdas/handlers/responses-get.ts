import { defineHandler } from '../http/define-handler.js';
import { answerResponsesGet } from '../responses/responses-call.js';

/** GET /api/v1/responses/{id}: a stored response of the caller's account, as it was answered. */
export const handler = defineHandler('responses-get', { handle: answerResponsesGet });
