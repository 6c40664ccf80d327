/**
 * Every metric the functions emit, in one place (docs/observability.md lists them). Names
 * and dimensions follow the OpenTelemetry GenAI semantic conventions where one exists
 * (`gen_ai.client.*`); the gateway's own figures are `gateway.*`. Units are EMF units.
 */
export const METRIC = {
  /** Per upstream attempt, answered or failed; seconds, as the convention defines it. */
  operationDuration: 'gen_ai.client.operation.duration',
  /** Streams that answered: request issued to first chunk of substance; seconds. */
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
  /** Input and output tokens, told apart by `gen_ai.token.type`. */
  tokenUsage: 'gen_ai.client.token.usage',
  upstreamRequests: 'gateway.upstream.requests',
  upstreamErrors: 'gateway.upstream.errors',
  /** Integer micro-USD, as the ledger keeps it. */
  costMicroUsd: 'gateway.cost.micro_usd',
  cacheHits: 'gateway.cache.hits',
  cacheMisses: 'gateway.cache.misses',
  retries: 'gateway.retries',
  fallbacks: 'gateway.fallbacks',
  requests: 'gateway.requests',
  clientErrors: 'gateway.requests.4xx',
  serverErrors: 'gateway.requests.5xx',
  /** Until the response (its headers, for a stream) was handed to the transport. */
  requestDuration: 'gateway.request.duration',
  /** Long upstream jobs (video, fashion) as they end: 1 a job, by kind and how it ended. */
  jobsEnded: 'gateway.jobs.ended',
  /** Submission to end of a job; seconds. */
  jobDuration: 'gateway.job.duration',
  /**
   * Streams already answered 200 that ended in a server error frame (an upstream that failed
   * mid-stream, or our own fault): API Gateway counts them as successes.
   */
  streamsFailed: 'gateway.streams.failed',
  /** Calls answered 401 (a missing, unknown or revoked credential), under no dimension: one alarm watches spikes. */
  authFailures: 'gateway.requests.unauthorized',
  /** Usage entries neither the ledger nor the retry queue took: billing records only the logs hold. */
  usageNotRecorded: 'gateway.usage.not_recorded',
  /** A budget's settled spend reaching 50, 80 or 100% of its limit in its period: 1 each time. */
  budgetThresholds: 'gateway.budget.thresholds_crossed',
} as const;

export const DIMENSION = {
  provider: 'gen_ai.provider.name',
  model: 'gen_ai.request.model',
  tokenType: 'gen_ai.token.type',
  route: 'route',
  jobKind: 'job.kind',
  jobPhase: 'job.phase',
  /** Whose budget: `key` or `account`. */
  budgetOwner: 'budget.owner',
  /** The share of the limit reached: `50`, `80` or `100`. */
  budgetThreshold: 'budget.threshold',
} as const;

/** The CloudWatch namespace; the stack's alarms and dashboard read the same constant. */
export const METRICS_NAMESPACE = 'AiGateway';

export type MetricUnitName = 'Seconds' | 'Milliseconds' | 'Count' | 'None';

/** One data point with the dimensions it is filed under. */
export interface MetricRecord {
  readonly name: string;
  readonly unit: MetricUnitName;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
}
