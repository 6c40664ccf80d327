import type { GatewayConfiguration } from '../config/configuration.js';
import { publishMetrics } from '../observability/metrics.js';
import { send } from '../providers/http-transport.js';
import { platformEndpointOf } from '../providers/provider-config.js';
import { recordUsage } from '../usage/usage-ledger.js';
import { JOB_DRIVERS } from './job-driver-registry.js';
import { endJob, getOwnedJob, recordProgress, takePollLease } from './job-repository.js';
import type { JobStepDeps } from './poll-step.js';

/** One upstream poll may take this long; the task functions' 30 s timeout leaves room for the writes. */
export const POLL_CALL_TIMEOUT_MS = 20_000;

/** The deployed status step's dependencies: the registered drivers, the jobs table, the ledger, the configuration's endpoints. */
export function jobStepDeps(config: GatewayConfiguration): JobStepDeps {
  return {
    drivers: JOB_DRIVERS,
    jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
    recordUsage,
    upstream: {
      endpoint: (service) => platformEndpointOf(service, config),
      send,
      signal: AbortSignal.timeout(POLL_CALL_TIMEOUT_MS),
    },
    now: () => new Date(),
    publishMetrics,
  };
}
