import { answerLeaderboard, LEADERBOARD_QUERY } from '../arena/leaderboard-call.js';
import { defineHandler } from '../http/define-handler.js';

/** GET /api/v1/arena/leaderboard: the account's models rated from its fights' votes, with intervals. */
export const handler = defineHandler('arena-leaderboard', { query: LEADERBOARD_QUERY, handle: answerLeaderboard });
