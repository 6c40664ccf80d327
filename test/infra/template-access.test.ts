// The synthesized template's access surface: IAM, cdk-nag, the REST API and its domain, the
// account role, CORS preflights and streaming. The cases live one concern per file; this file
// runs them together because each jest file loads the CDK anew (a few seconds per file, more
// than most of them take to run).
import './iam.cases.js';
import './tenant-access.cases.js';
import './nag.cases.js';
import './api.cases.js';
import './custom-domain.cases.js';
import './api-gateway-account-role.cases.js';
import './publishable-key-preflight.cases.js';
import './streaming.cases.js';
import './console-distribution.cases.js';
