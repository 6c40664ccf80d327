import { ENV } from '../../lambdas/config/environment.js';
import { FAMILIES, SEARCH_PROVIDER_IDS } from '../../lambdas/catalog/model-catalog.js';
import { UNIT_PRICES, type UsageUnit } from '../../lambdas/catalog/unit-prices.js';
import { JOB_DRIVERS } from '../../lambdas/jobs/job-driver-registry.js';
import type { JobRecord } from '../../lambdas/jobs/job-record.js';
import { jobMetrics } from '../../lambdas/jobs/job-metrics.js';
import type { AttemptTiming } from '../../lambdas/observability/usage-metrics.js';
import { budgetThresholdMetrics } from '../../lambdas/observability/budget-metrics.js';
import { callMetrics, routingMetrics } from '../../lambdas/observability/call-metrics.js';
import { DIMENSION, type MetricRecord } from '../../lambdas/observability/metric-names.js';
import { usageMetrics } from '../../lambdas/observability/usage-metrics.js';
import { SEARCH_TYPES } from '../../lambdas/search/search-types.js';
import type { UsageEntry } from '../../lambdas/store/usage-items.js';
import { AWS_PRICES } from './aws-prices.js';
import { readable, type CostLine } from './table-costs.js';
import { ofType, referencedIds, type Template } from './template.js';

/**
 * CloudWatch custom metrics from the functions' EMF lines (docs/observability.md). Each distinct
 * metric name and set of dimension values is one metric, billed per metric-month, prorated by
 * the hour and only for hours it is published in: an idle month costs nothing, and at steady
 * traffic the figure does not grow with requests. So it is neither idle cost nor per-request
 * cost, but a bound: what a month costs when every route is called and every catalog model is
 * used in every hour of it ("full activity").
 *
 * The count is not written down: the publishing code (lambdas/observability) is run over every
 * value its dimensions can take in this deployment (routes from the template, models and
 * providers from the catalog), and the distinct series are counted, so a new metric, dimension
 * or route changes the figure by itself.
 */

/** The values the dimensions can take in a deployment. */
export interface MetricReach {
  /** Every route's function (logical ids stand in for route ids: one per route). */
  readonly routes: readonly string[];
  /** The routes that run the chat core (answers, cache, retries, fallbacks). */
  readonly chatRoutes: readonly string[];
  /** Every upstream a chat attempt can go to: each family's routes in the catalog. */
  readonly chatTargets: readonly Target[];
  /** Every search a search attempt can be metered as: provider and `<provider>/<type>`. */
  readonly searchTargets: readonly Target[];
  /** Every unit-priced model metered per upstream call (speech, music). */
  readonly mediaTargets: readonly Target[];
  /** Every job kind, with the unit-priced models its jobs are metered as. */
  readonly jobKinds: readonly { readonly kind: string; readonly targets: readonly Target[] }[];
}

/**
 * Speech and music are metered per upstream call, video and fashion once a job ends
 * (catalog/unit-prices.ts): which of the unit-priced models each publisher can file cost under.
 */
const ATTEMPT_UNITS: ReadonlySet<UsageUnit> = new Set(['characters', 'songs']);
const JOB_UNITS: Readonly<Record<string, UsageUnit>> = { video: 'seconds', fashion: 'credits' };

function unitTargets(units: (unit: UsageUnit) => boolean): Target[] {
  return Object.entries(UNIT_PRICES)
    .filter(([, price]) => units(price.unit))
    .map(([model]) => ({ provider: model.split('/')[0]!, model }));
}

interface Target {
  readonly provider: string;
  readonly model: string;
}

/** Routes are the functions API Gateway methods proxy to (CORS preflights are mock integrations). */
function routeFunctions(template: Template): string[] {
  const ids = ofType(template, 'AWS::ApiGateway::Method').flatMap(([, method]) => {
    const integration = method.Properties?.['Integration'] as { Type?: string; Uri?: unknown } | undefined;
    return integration?.Type === 'AWS_PROXY' ? referencedIds(integration.Uri) : [];
  });
  return [...new Set(ids)].filter((id) => template.Resources[id]?.Type === 'AWS::Lambda::Function');
}

/**
 * The chat routes hold routes.ts's CHAT_GRANTS, of which `promptService:read` is theirs alone:
 * in the template, the functions told where the prompt service key is.
 */
function readsPromptServiceKey(template: Template, id: string): boolean {
  const environment = template.Resources[id]?.Properties?.['Environment'] as
    { Variables?: Record<string, unknown> } | undefined;
  return environment?.Variables?.[ENV.promptServiceKeySecretId] !== undefined;
}

export function metricReach(template: Template): MetricReach {
  const routes = routeFunctions(template);
  return {
    routes,
    chatRoutes: routes.filter((id) => readsPromptServiceKey(template, id)),
    chatTargets: FAMILIES.flatMap((family) => family.routes),
    searchTargets: SEARCH_PROVIDER_IDS.flatMap((provider) =>
      SEARCH_TYPES.map((type) => ({ provider, model: `${provider}/${type}` })),
    ),
    mediaTargets: unitTargets((unit) => ATTEMPT_UNITS.has(unit)),
    jobKinds: [...JOB_DRIVERS.keys()].map((kind) => ({
      kind,
      targets: unitTargets((unit) => unit === JOB_UNITS[kind]),
    })),
  };
}

const entry = (route: string, target: Target, fields: Partial<UsageEntry> = {}): UsageEntry => ({
  requestId: 'request',
  sequence: 0,
  accountId: 'account',
  route,
  model: target.model,
  provider: target.provider,
  promptTokens: 1,
  completionTokens: 1,
  costMicroUsd: 1,
  priced: true,
  estimated: false,
  cached: false,
  status: 200,
  outcome: 'ok',
  at: '2026-11-01T00:00:00.000Z',
  ...fields,
});

/** A streamed answer: every timing figure is published. */
const TIMING: AttemptTiming = { durationMs: 1, firstTokenMs: 1 };

/**
 * What each publisher writes, over every value its dimensions can take, with every branch
 * taken (a retry, a fallback, a cache miss and a hit, tokens, cost). Battle and fight publish
 * no retries, fallbacks or misses (docs/observability.md), so those count as an upper bound.
 */
const PUBLISHERS: readonly ((reach: MetricReach) => MetricRecord[])[] = [
  // Every call of every route (lambdas/http/middlewares/response-writing.ts).
  (reach) => reach.routes.flatMap((route) => callMetrics(route, 200, 1)),
  // Chat answers (lambdas/chat/chat-call.ts).
  (reach) =>
    reach.chatRoutes.flatMap((route) => routingMetrics(route, { retries: 1, fallbackFrom: 'model', cache: 'MISS' })),
  // The chat core's meter (lambdas/chat/chat-deployment.ts): cache hits and upstream attempts.
  (reach) =>
    reach.chatRoutes.flatMap((route) =>
      reach.chatTargets.flatMap((target) => [
        ...usageMetrics(entry(route, target, { cached: true, outcome: 'cache_hit', costMicroUsd: 0 })),
        ...usageMetrics(entry(route, target), TIMING),
      ]),
    ),
  // Image analysis's meter (lambdas/chat/image-analysis-call.ts): its attempts go to the chat targets,
  // whose series carry no route (counted above); its cache hits are one series under its route.
  (reach) =>
    usageMetrics(
      entry('images-analyze', reach.chatTargets[0]!, { cached: true, outcome: 'cache_hit', costMicroUsd: 0 }),
    ),
  // Web search's meter (lambdas/search/search-call.ts): no tokens and no timing, the provider's cost.
  (reach) =>
    reach.searchTargets.flatMap((target) =>
      usageMetrics(entry('search', target, { promptTokens: 0, completionTokens: 0 })),
    ),
  // Speech and music's meter (lambdas/media/media-metering.ts): MiniMax attempts priced per unit.
  (reach) =>
    reach.mediaTargets.flatMap((target) =>
      usageMetrics(entry('media', target, { promptTokens: 0, completionTokens: 0 })),
    ),
  // Budgets' thresholds (lambdas/usage/budget-notices.ts): whose budget and which threshold.
  () =>
    (['key', 'account'] as const).flatMap((owner) => [50, 80, 100].flatMap((t) => budgetThresholdMetrics(owner, t))),
  // Jobs as they end (lambdas/jobs/settle-job.ts): by kind and outcome, and the cost of each priced model.
  (reach) =>
    reach.jobKinds.flatMap(({ kind, targets }) =>
      targets.flatMap((target) =>
        (['succeeded', 'failed'] as const).flatMap((phase) =>
          jobMetrics(
            { kind, createdAt: '2026-11-01T00:00:00.000Z' } as JobRecord,
            phase === 'succeeded'
              ? { phase, upstreamStatus: 'done', result: {} }
              : { phase, error: { name: 'failed', message: 'failed' } },
            new Date('2026-11-01T00:01:00.000Z'),
            entry(kind, target, { promptTokens: 0, completionTokens: 0 }),
          ),
        ),
      ),
    ),
];

/** Dimension names as the table prints them: the short names metric-names.ts gives them. */
const DIMENSION_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(DIMENSION).map(([label, name]) => [name, label]),
);

/** One metric as CloudWatch bills it: its name and its dimension values (Powertools' `service` is on all). */
const seriesKey = (record: MetricRecord) =>
  JSON.stringify([record.name, Object.entries(record.dimensions).sort(([a], [b]) => a.localeCompare(b))]);

export interface MetricSeries {
  readonly name: string;
  /** Distinct series of this name, by the dimension names they are filed under. */
  readonly byDimensions: ReadonlyMap<string, number>;
  readonly series: number;
}

/** The distinct series each metric name is published as at full activity. */
export function customMetricSeries(reach: MetricReach): MetricSeries[] {
  const unique = new Map(PUBLISHERS.flatMap((publish) => publish(reach)).map((r) => [seriesKey(r), r]));
  const byName = new Map<string, Map<string, number>>();
  for (const record of unique.values()) {
    const dimensions =
      Object.keys(record.dimensions)
        .map((name) => DIMENSION_LABELS[name] ?? name)
        .join(' × ') || 'no dimension';
    const counts = byName.get(record.name) ?? new Map<string, number>();
    counts.set(dimensions, (counts.get(dimensions) ?? 0) + 1);
    byName.set(record.name, counts);
  }
  return [...byName].map(([name, byDimensions]) => ({
    name,
    byDimensions,
    series: [...byDimensions.values()].reduce((sum, n) => sum + n, 0),
  }));
}

/** The monthly price of `metrics` custom metrics, through CloudWatch's volume tiers. */
export function customMetricsUsd(metrics: number): number {
  let usd = 0;
  let from = 0;
  for (const tier of AWS_PRICES.cloudWatch.customMetricTiers) {
    usd += Math.max(0, Math.min(metrics, tier.upTo) - from) * tier.perMetricMonth;
    from = tier.upTo;
  }
  return usd;
}

/** One line per metric name: its series at full activity, and their share of the month's price. */
export function customMetricsPerMonth(template: Template): CostLine[] {
  const series = customMetricSeries(metricReach(template));
  const all = series.reduce((sum, s) => sum + s.series, 0);
  const perMetric = all === 0 ? 0 : customMetricsUsd(all) / all;
  return series.map((s) => ({
    item: s.name,
    usd: s.series * perMetric,
    basis: [...s.byDimensions].map(([dimensions, n]) => `${readable(n)} (${dimensions})`).join(', '),
  }));
}
