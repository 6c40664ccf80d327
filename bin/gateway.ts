import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GatewayStack } from '../lib/gateway-stack.js';
import { readGatewayContext } from '../lib/context.js';
import { bundleIsCurrent } from '../local/bundle-freshness.mjs';

const app = new App();
const packageVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
const context = readGatewayContext(app.node, {
  gatewayVersion: packageVersion,
  region: process.env.CDK_DEFAULT_REGION,
});

// The console's files are an asset of the stack: built here when missing or older than their
// sources, as `npm start` does, so a fresh clone synthesizes offline.
if (context.console !== false && !bundleIsCurrent(fileURLToPath(new URL('../console/.dist-built', import.meta.url)))) {
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('../local/build-console.mjs', import.meta.url))], {
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  if (built.status !== 0)
    throw new Error(
      'the console could not be built (see above): fix it, or deploy the API alone (leave -c console unset, or off)',
    );
}

new GatewayStack(app, context.stackName, {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: context.region },
  description: 'AI gateway: one REST API, one Lambda function per route, DynamoDB, Secrets Manager, Cognito',
  stageName: context.stage,
  corsOrigins: context.corsOrigins,
  gatewayVersion: context.gatewayVersion,
  webAclArn: context.webAclArn,
  waf: context.waf,
  backups: context.backups,
  promptServiceUrl: context.promptServiceUrl,
  themesProviderUrl: context.themesProviderUrl,
  guardrail: context.guardrail,
  moderationUrl: context.moderationUrl,
  imageDescriberModel: context.imageDescriberModel,
  stageThrottle: context.stageThrottle,
  reservedConcurrency: context.reservedConcurrency,
  accountConcurrency: context.accountConcurrency,
  concurrencyPartition: context.concurrencyPartition,
  apiGatewayAccountRole: context.apiGatewayAccountRole,
  customDomain: context.customDomain,
  alarmEmail: context.alarmEmail,
  dashboardMfa: context.dashboardMfa,
  legacyChatSunset: context.legacyChatSunset,
  streamingCompute: context.streamingCompute,
  openTelemetryLayerArn: context.otelLayerArn,
  console: context.console === false ? undefined : context.console,
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
