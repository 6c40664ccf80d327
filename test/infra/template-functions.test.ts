// The synthesized template's functions: their settings and environment, concurrency, timeouts,
// the job poller, the feature flags and the deployment's context. One concern per file, run
// together here: each jest file loads the CDK anew.
import './functions.cases.js';
import './concurrency.cases.js';
import './buffered-timeouts.cases.js';
import './job-poller.cases.js';
import './feature-flags.cases.js';
import './context.cases.js';
import './managed-instances.cases.js';
import './open-telemetry.cases.js';
