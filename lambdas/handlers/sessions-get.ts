import { answerSessionGet } from '../arena/sessions-call.js';
import { defineHandler } from '../http/define-handler.js';

/** GET /api/v1/sessions/{id}: a session's state (plan, rounds, votes, leaderboard, status). */
export const handler = defineHandler('sessions-get', { handle: answerSessionGet });
