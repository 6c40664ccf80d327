import { arenaRequestValidator } from '../arena/arena-request.js';
import { answerArena } from '../arena/arena-call.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/fight: 2 to 8 models (or four instances of one) answer, see each other and vote. */
export const handler = defineHandler('fight', {
  body: arenaRequestValidator,
  handle: (call) => answerArena(call, 'fight'),
});
