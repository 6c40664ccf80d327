// The synthesized template's data and operations: tables and keys, retention, backups, the usage
// pipeline and its exports, monitoring, two stacks side by side, the cost model. One concern per
// file, run together here: each jest file loads the CDK anew.
import './data.cases.js';
import './retention.cases.js';
import './backups.cases.js';
import './usage-pipeline.cases.js';
import './budget-webhooks.cases.js';
import './usage-exports.cases.js';
import './monitoring.cases.js';
import './two-stacks.cases.js';
import './cost-model.cases.js';
