import { chatAnswerHeaders } from '../chat/chat-reply.js';
import { chatInputOf } from '../chat/chat-call.js';
import { accountOf, type AccountCall } from '../http/call.js';
import { bare, sse, type Reply, type SseFrame } from '../http/reply.js';
import { routingMetrics } from '../observability/call-metrics.js';
import { publishMetrics } from '../observability/metrics.js';
import { createResponse, deleteResponse, getResponse } from './responses-core.js';
import { deploymentResponsesDeps } from './responses-deployment.js';
import type { ResponsesRequest } from './responses-request.js';
import type { ResponseEvent } from './responses-stream.js';

/**
 * The HTTP adapters of the Responses routes. `POST /api/v1/responses` reads what HTTP carries as
 * chat completions does (guardrail header, cache headers, the principal) and answers with the
 * same headers; the stored responses are the account's, whichever of its keys made them.
 */
export async function answerResponsesCreate(call: AccountCall<ResponsesRequest>): Promise<Reply> {
  const request = call.body;
  const result = await createResponse(
    { ...chatInputOf(call, request.guardrails), request },
    deploymentResponsesDeps(call.config),
  );
  const cache = result.kind === 'whole' ? result.cache : undefined;
  publishMetrics(routingMetrics(call.route.id, { ...result.routing, cache }));
  const headers = chatAnswerHeaders(result);
  if (result.kind === 'stream') return sse(framed(result.events), headers);
  return bare(result.response, 200, { ...headers, 'X-Cache': result.cache });
}

export async function answerResponsesGet(call: AccountCall): Promise<Reply> {
  const { accountId } = accountOf(call);
  return bare(await getResponse(accountId, call.req.pathParams['id'] ?? '', deploymentResponsesDeps(call.config)));
}

export async function answerResponsesDelete(call: AccountCall): Promise<Reply> {
  const { accountId } = accountOf(call);
  return bare(await deleteResponse(accountId, call.req.pathParams['id'] ?? '', deploymentResponsesDeps(call.config)));
}

/** Each event as an SSE frame named by its type (`event: response.output_text.delta`). */
async function* framed(events: AsyncIterable<ResponseEvent>): AsyncGenerator<SseFrame> {
  for await (const event of events) yield { event: event.type, data: event };
}
