import { chatRequestValidator } from '../chat/chat-request.js';
import { answerChat } from '../chat/chat-call.js';
import { defineHandler } from '../http/define-handler.js';

/** POST /api/v1/chat/completions: the chat core, fed from the call and answered as HTTP. */
export const handler = defineHandler('chat-completions', {
  body: chatRequestValidator,
  handle: (call) => answerChat(call, call.body),
});
