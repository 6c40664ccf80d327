import { legacyChatRequestValidator, singleModelRequest } from '../arena/arena-request.js';
import { answerArena } from '../arena/arena-call.js';
import { legacyChatHeaders } from '../arena/legacy-deprecation.js';
import { answerChat } from '../chat/chat-call.js';
import { defineHandler } from '../http/define-handler.js';

/**
 * POST /api/chat (legacy, deprecated): the body's `mode` picks the v1 behaviour: `chat` is the
 * chat-completions route fed from the ChatRequest fields, `battle` and `fight` the v1 routes.
 * Every answer says so in its Deprecation, Link and (when set) Sunset headers.
 */
export const handler = defineHandler('chat-legacy', {
  body: legacyChatRequestValidator,
  headers: legacyChatHeaders,
  handle: (call) =>
    call.body.mode === 'chat' ? answerChat(call, singleModelRequest(call.body)) : answerArena(call, call.body.mode),
});
