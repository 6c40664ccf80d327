import { routerDepsOf } from './chat-core.js';
import { deploymentChatDeps } from './chat-deployment.js';
import { describeImage, describerModel } from './image-descriptions.js';
import { checkImageAnalysis, type ImageAnalysisBody } from './image-analysis-request.js';
import { readsCache } from './response-cache.js';
import { BudgetHolds } from '../usage/budget-holds.js';
import { Meter } from '../usage/metering.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { envelope, type Reply } from '../http/reply.js';

/**
 * Per attempt, within the route's 25 s: a vision model reading a large image may well take 15 s,
 * so most of the time goes to the first attempt; a failover after a quick failure still fits,
 * and the call's own deadline (1 s before the function's) ends whatever still runs with a 503.
 */
const ANALYSIS_ATTEMPT_TIMEOUT_MS = 20_000;

/**
 * `POST /api/v1/images/analyze` (docs/interface.md §4.11): one image through the chat router's image
 * describer, with the deployment's chat dependencies (the caller's own provider keys first).
 * Each upstream attempt is one ledger entry, a cached description one free `cache_hit` entry,
 * written after the response; `X-Cache` and `cached` say which it was.
 */
export async function answerImageAnalysis(call: AccountCall<ImageAnalysisBody>): Promise<Reply> {
  const image = await checkImageAnalysis(call.body);
  const deps = deploymentChatDeps(call.config);
  const account = accountOf(call);
  // The caller's key budget holds each description call, as it holds chat's.
  const holds = new BudgetHolds(budgetsOf(call), {
    store: deps.budgetStore,
    now: () => new Date(deps.now()),
    defer: (task) => void call.afterResponse.push(task),
    observe: deps.observeBudget,
  });
  const meter = new Meter(
    { ...account, requestId: call.requestId, route: call.route.id, at: call.startedAt },
    deps.recordUsage,
    deps.observeUsage,
    (cost) => holds.settle(cost),
  );
  call.afterResponse.push(() => meter.flush());
  const analysis = await describeImage(
    {
      url: image.url,
      field: image.field,
      prompt: call.body.prompt,
      model: call.body.model,
      readCache: readsCache(call.req.headers),
      timeoutMs: ANALYSIS_ATTEMPT_TIMEOUT_MS,
    },
    describerModel(call.config.imageDescriberModel),
    { accountId: account.accountId, deps: routerDepsOf(deps, account.accountId, meter, holds), signal: call.signal },
  );
  if (analysis.cached) meter.cacheHit(analysis.model, analysis.provider, analysis.usage);
  const { description, model, usage, cached } = analysis;
  return envelope({ description, model, usage, cached }, 200, {
    'X-Cache': cached ? 'HIT' : 'MISS',
    'X-Model-Used': model,
  });
}
