import { chatCompletion } from '../gateway/chat-core.js';
import { deploymentChatDeps } from '../gateway/chat-deployment.js';
import { chatRequestValidator, type GatewayChatRequest } from '../gateway/chat-request.js';
import { parseGuardrails } from '../gateway/guardrails/index.js';
import { cachePolicy } from '../gateway/response-cache.js';
import type { AccountPrincipal } from '../identity/principal.js';
import { chatReply } from '../http/chat-reply.js';
import { defineHandler } from '../http/define-handler.js';
import { endedByTimeout } from '../http/middlewares/request-context.js';

/** POST /api/v1/chat/completions: the chat core, fed from the call and answered as HTTP. */
export const handler = defineHandler<GatewayChatRequest>('chat-completions', {
  body: chatRequestValidator,
  handle: async (call) => {
    const principal = call.principal as AccountPrincipal;
    const result = await chatCompletion(
      {
        request: call.body,
        account: { accountId: principal.accountId, keyId: 'keyId' in principal ? principal.keyId : undefined },
        requestId: call.requestId,
        route: call.route.id,
        startedAt: call.startedAt,
        guardrails: parseGuardrails(call.body.guardrails, call.req.headers['x-guardrails']),
        cache: cachePolicy(call.req.headers),
        signal: call.signal,
        deadlineReached: () => endedByTimeout(call.signal),
        defer: (task) => void call.afterResponse.push(task),
      },
      deploymentChatDeps,
    );
    return chatReply(result, call.signal);
  },
});
