import { cachePolicy } from '../chat/response-cache.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { bare, type Reply } from '../http/reply.js';
import { createEmbeddings } from './embeddings-core.js';
import { deploymentEmbeddingsDeps } from './embeddings-deployment.js';
import type { EmbeddingsRequestBody } from './embeddings-request.js';

/**
 * One embeddings request for one call: the cache headers and the caller's key budget read from
 * the call, the core run with the deployment's dependencies, the answer as OpenAI's bare
 * `list` with chat's routing and cache headers (docs/interface.md §4.12).
 */
export async function answerEmbeddings(call: AccountCall<EmbeddingsRequestBody>): Promise<Reply> {
  const result = await createEmbeddings(
    {
      body: call.body,
      account: { ...accountOf(call), budgets: budgetsOf(call) },
      requestId: call.requestId,
      route: call.route.id,
      startedAt: call.startedAt,
      cache: cachePolicy(call.req.headers),
      signal: call.signal,
      defer: (task) => void call.afterResponse.push(task),
    },
    deploymentEmbeddingsDeps(call.config),
  );
  return bare(result.body, 200, {
    'X-Model-Used': result.servedBy,
    'X-Cache': result.cache,
    'X-Retry-Count': String(result.retries),
    ...(result.fallbackFrom ? { 'X-Fallback-From': result.fallbackFrom } : {}),
  });
}
