import { answerSessionCancel } from '../arena/sessions-call.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/sessions/{id}/cancel: stops a running session at its host's next lease renewal. */
export const handler = defineHandler('sessions-cancel', { handle: answerSessionCancel });
