import { chatCompletionsBodyValidator, gatewayRequestOf } from '../arena/chat-completions-body.js';
import { answerChat } from '../chat/chat-call.js';
import { defineHandler } from '../http/define-handler.js';

/**
 * POST /api/v1/chat/completions: the chat core, fed from the call and answered as HTTP. The body
 * is the OpenAI request or the chat modes' ChatRequest (arena/chat-completions-body.ts).
 */
export const handler = defineHandler('chat-completions', {
  body: chatCompletionsBodyValidator,
  handle: (call) => answerChat(call, gatewayRequestOf(call.body)),
});
