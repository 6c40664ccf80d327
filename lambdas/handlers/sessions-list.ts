import { answerSessionsList, SESSIONS_LIST_QUERY } from '../arena/sessions-call.js';
import { defineHandler } from '../http/define-handler.js';

/** GET /api/v1/sessions: the account's battle and fight sessions, newest first. */
export const handler = defineHandler('sessions-list', { query: SESSIONS_LIST_QUERY, handle: answerSessionsList });
