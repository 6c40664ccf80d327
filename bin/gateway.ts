import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GatewayStack } from '../lib/gateway-stack.js';
import { readGatewayContext } from '../lib/context.js';

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
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
