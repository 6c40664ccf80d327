import { arenaRequestValidator } from '../arena/arena-request.js';
import { answerArena } from '../arena/arena-call.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/battle: two models answer the same message side by side. */
export const handler = defineHandler('battle', {
  body: arenaRequestValidator,
  handle: (call) => answerArena(call, 'battle'),
});
