import { defineHandler } from '../http/define-handler.js';
import { answerFashionStatus } from '../fashion/fashion-call.js';

/** GET /api/v1/fashion/status/{id}: the caller's fashion prediction. */
export const handler = defineHandler('fashion-status', { handle: answerFashionStatus });
