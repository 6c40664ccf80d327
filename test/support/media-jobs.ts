import { JOB_DRIVERS } from '../../lambdas/jobs/job-driver-registry.js';
import type { JobExecutionInput } from '../../lambdas/jobs/job-execution.js';
import {
  createJob,
  endJob,
  getOwnedJob,
  recordProgress,
  takePollLease,
  updateJobResult,
} from '../../lambdas/jobs/job-repository.js';
import type { JobPollDeps } from '../../lambdas/jobs/job-driver.js';
import type { MediaJobDeps } from '../../lambdas/jobs/media-job-deps.js';
import { pollJob, type JobStepOutcome } from '../../lambdas/jobs/poll-step.js';
import { send } from '../../lambdas/providers/http-transport.js';
import type { ProviderEndpoint } from '../../lambdas/providers/provider-config.js';
import { dynamoIdempotencyStore } from '../../lambdas/store/idempotency.js';
import { recordUsage } from '../../lambdas/usage/usage-ledger.js';
import { createFashnSimulator, type FashnSimulatorOptions } from '../../local/simulators/fashn.js';
import { startSimulator, type RunningSimulator } from '../../local/simulators/harness.js';
import { minimaxSimulator } from '../../local/simulators/minimax.js';
import { startJobTables } from './job-upstream.js';

/**
 * The video and fashion cores' world for tests without servers of the gateway's own: the
 * embedded DynamoDB (jobs, usage, cache tables), the MiniMax and FASHN fakes on loopback, the
 * real repository, ledger and drivers. Only the poller's start is recorded instead of run: a
 * test moves a job with the real status step (`pollOnce`), so it controls every step.
 */
export interface MediaJobWorld {
  readonly minimax: RunningSimulator;
  readonly fashn: RunningSimulator;
  /** Executions asked for, by job id. */
  readonly started: Map<string, JobExecutionInput>;
  deps(overrides?: Partial<MediaJobDeps>): MediaJobDeps;
  /** The platform's endpoints as the drivers are given them: the simulators', by service id. */
  endpoint: JobPollDeps['endpoint'];
  /** One run of the state machine's status step for the job, now. */
  pollOnce(accountId: string, jobId: string): Promise<JobStepOutcome>;
  stop(): Promise<void>;
}

export const SIM_KEY = 'sim-local-key';

export async function startMediaJobWorld(prefix: string, fashn: FashnSimulatorOptions = {}): Promise<MediaJobWorld> {
  const tables = await startJobTables(prefix);
  const minimax = await startSimulator(minimaxSimulator);
  const fashnSim = await startSimulator(createFashnSimulator({ concurrency: 100, ...fashn }));
  // Tests submit faster than FASHN's 10 runs a second; its limits have tests of their own.
  await fetch(`${fashnSim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ qps: null }) });
  const endpoints: Record<string, ProviderEndpoint> = {
    minimax: { baseUrl: `${minimax.url}/v1`, apiKey: SIM_KEY },
    fashn: { baseUrl: `${fashnSim.url}/v1`, apiKey: SIM_KEY },
  };
  const endpoint: JobPollDeps['endpoint'] = async (service) => endpoints[service.id];
  const started = new Map<string, JobExecutionInput>();
  const deps = (overrides: Partial<MediaJobDeps> = {}): MediaJobDeps => ({
    minimax: async () => endpoints['minimax'],
    fashn: async () => endpoints['fashn']!,
    send,
    drivers: JOB_DRIVERS,
    jobs: { createJob, getOwnedJob, endJob, updateJobResult },
    startExecution: async (name, input) => void started.set(name, input),
    recordUsage,
    idempotency: dynamoIdempotencyStore,
    now: () => new Date(),
    ...overrides,
  });
  return {
    minimax,
    fashn: fashnSim,
    started,
    deps,
    endpoint,
    pollOnce: (accountId, jobId) =>
      pollJob(
        { jobId, accountId, attempt: 1, deadline: new Date(Date.now() + 3_600_000).toISOString() },
        {
          drivers: JOB_DRIVERS,
          jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
          recordUsage,
          upstream: { endpoint, send, signal: AbortSignal.timeout(10_000) },
          now: () => new Date(),
        },
      ),
    stop: async () => {
      await Promise.all([minimax.close(), fashnSim.close()]);
      await tables.stop();
    },
  };
}
