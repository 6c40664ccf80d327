import { chatCompletion } from '../gateway/chat-service.js';
import { chatRequestValidator, type GatewayChatRequest } from '../gateway/chat-request.js';
import { defineHandler } from '../http/define-handler.js';

export const handler = defineHandler<GatewayChatRequest>('chat-completions', {
  body: chatRequestValidator,
  handle: (call) => chatCompletion(call),
});
