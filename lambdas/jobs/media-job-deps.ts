import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import type { MetricRecord } from '../observability/metric-names.js';
import { publishMetrics } from '../observability/metrics.js';
import type { HostLookup } from '../schema/public-url.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { configuredFashion } from '../fashion/fashion-deployment.js';
import { send, type TransportRequest, type TransportResponse } from '../providers/http-transport.js';
import { platformEndpointOf, type ProviderEndpoint } from '../providers/provider-config.js';
import { dynamoIdempotencyStore, type IdempotencyStore } from '../store/idempotency.js';
import type { ScopedBudget } from '../store/budget-counters.js';
import type { UsageEntry } from '../store/usage-items.js';
import { recordUsage } from '../usage/usage-ledger.js';
import type { JobEnd } from './job-driver.js';
import { JOB_DRIVERS, type JobDrivers } from './job-driver-registry.js';
import type { JobExecutionInput } from './job-execution.js';
import type { GetOwnedJob } from './job-lookup.js';
import type { JobRecord, JsonObject } from './job-record.js';
import { createJob, endJob, getOwnedJob, readOwnJob, updateJobResult } from './job-repository.js';
import { jobExecutionStarter } from './poller-executions.js';

/**
 * What the video and fashion cores need from the world: the upstreams' endpoints and HTTP,
 * the job records, the poller, the ledger and a clock; it serves startJob and settleJob as it
 * is. The deployment's are below; tests pass their own (simulators on loopback, the embedded
 * DynamoDB, a recorded start).
 */
export interface MediaJobDeps {
  /** The platform's MiniMax endpoint; undefined when this deployment has no key for it. */
  readonly minimax: () => Promise<ProviderEndpoint | undefined>;
  /** The platform's FASHN endpoint; throws FashionError `not_configured` without a key. */
  readonly fashn: () => Promise<ProviderEndpoint>;
  readonly send: (request: TransportRequest) => Promise<TransportResponse>;
  readonly drivers: JobDrivers;
  readonly jobs: {
    readonly createJob: (job: JobRecord) => Promise<boolean>;
    readonly getOwnedJob: GetOwnedJob;
    readonly endJob: (job: JobRecord, end: JobEnd, now?: Date) => Promise<boolean>;
    readonly updateJobResult: (job: JobRecord, result: JsonObject, now?: Date) => Promise<boolean>;
  };
  /** Starts the poller execution named `name` (lambdas/jobs/poller-executions.ts). */
  readonly startExecution: (name: string, input: JobExecutionInput) => Promise<void>;
  readonly recordUsage: (entry: UsageEntry) => Promise<boolean>;
  readonly idempotency: IdempotencyStore;
  readonly now: () => Date;
  /** The metrics of a job the core ends itself (a watched fashion prediction). @default none */
  readonly publishMetrics?: (records: readonly MetricRecord[]) => void;
  /** Resolves the host names of caller URLs (lambdas/schema/public-url.ts). @default node:dns lookup */
  readonly lookupHost?: HostLookup;
  /** Origins a `webhook_url` may name despite the public-URL policy (lambdas/jobs/webhook-url.ts). @default none */
  readonly webhookReceivers?: readonly string[];
}

/** Who submits a job: it is theirs, and metered under their request and route. */
export type JobOwner = Pick<JobRecord, 'accountId' | 'keyId' | 'requestId' | 'route'> & {
  /** The budgets the submission reserves against (the submitting key's); not kept on the record. */
  readonly budgets?: readonly ScopedBudget[];
};

/** The owner as a job record keeps it: everything but the budgets, whose reservation it keeps instead. */
export const recordedOwner = ({ budgets: _budgets, ...owner }: JobOwner) => owner;

/** The deployment's, for a configuration: the platform's endpoints and the poller it names. */
export function deploymentMediaJobDeps(config: GatewayConfiguration): MediaJobDeps {
  return {
    minimax: () => platformEndpointOf(MEDIA_PROVIDERS.minimax, config),
    fashn: async () => configuredFashion(await platformEndpointOf(MEDIA_PROVIDERS.fashn, config)),
    send,
    drivers: JOB_DRIVERS,
    // The routes read a caller's own jobs only, under its tenant session.
    jobs: { createJob, getOwnedJob: readOwnJob, endJob, updateJobResult },
    startExecution: jobExecutionStarter(config.jobStateMachineArn),
    recordUsage,
    idempotency: dynamoIdempotencyStore,
    now: () => new Date(),
    publishMetrics,
    webhookReceivers: config.localWebhookReceivers,
  };
}

/**
 * The same for the job poller's tasks (the webhook's event view), which act for no caller: they
 * read the job with the function role, which may read job records (`jobs:read`) and nothing else.
 */
export function taskMediaJobDeps(config: GatewayConfiguration): MediaJobDeps {
  const deps = deploymentMediaJobDeps(config);
  return { ...deps, jobs: { ...deps.jobs, getOwnedJob } };
}
