import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GatewayStack } from '../../lib/gateway-stack.js';
import { observabilityNames } from '../../lib/names.js';
import { CDK_JSON_FEATURE_FLAGS, manifestRoutes, REGION } from './support.js';

/**
 * Staging beside prod in one account and region: nothing either stack names may be the other's,
 * and neither's alarms, dashboard or functions may read or file the other's metrics.
 */
const app = new App({
  context: { ...CDK_JSON_FEATURE_FLAGS, 'aws:cdk:bundling-stacks': [] },
  // As test/infra/support.ts builds stacks: without aws-cdk-lib's own (slow) template checks.
  builtinCloudFormationValidation: false,
});
const stacks = ['AiGateway', 'AiGatewayStaging'].map(
  (name) => new GatewayStack(app, name, { env: { region: REGION }, routes: manifestRoutes }),
);
const templates = stacks.map((stack) => Template.fromStack(stack).toJSON() as { Resources: Record<string, any> });

/** The properties that name a resource in the account and region (or account-wide). */
const ACCOUNT_NAMES: Record<string, (props: any) => unknown> = {
  'AWS::ApiGateway::RestApi': (p) => p.Name,
  'AWS::Logs::LogGroup': (p) => p.LogGroupName,
  'AWS::Scheduler::ScheduleGroup': (p) => p.Name,
  'AWS::KMS::Alias': (p) => p.AliasName,
  'AWS::Glue::Database': (p) => p.DatabaseInput?.Name,
  'AWS::Athena::WorkGroup': (p) => p.Name,
  'AWS::DynamoDB::GlobalTable': (p) => p.TableName,
  'AWS::SQS::Queue': (p) => p.QueueName,
  'AWS::SNS::Topic': (p) => p.TopicName,
  'AWS::Lambda::Function': (p) => p.FunctionName,
  'AWS::StepFunctions::StateMachine': (p) => p.StateMachineName,
  'AWS::Cognito::UserPool': (p) => p.UserPoolName,
  'AWS::S3::Bucket': (p) => p.BucketName,
  'AWS::SecretsManager::Secret': (p) => p.Name,
  'AWS::CloudWatch::Dashboard': (p) => p.DashboardName,
  'AWS::CloudWatch::Alarm': (p) => p.AlarmName,
};

/**
 * Each named resource's literal name. A name built by an intrinsic from one of the stack's own
 * resources (`API-Gateway-Execution-Logs_<Ref api>`) differs between stacks by construction.
 */
function namesIn(template: { Resources: Record<string, any> }): Set<string> {
  const found = new Set<string>();
  for (const resource of Object.values(template.Resources)) {
    const name = ACCOUNT_NAMES[resource.Type]?.(resource.Properties ?? {});
    if (typeof name === 'string') found.add(name);
  }
  return found;
}

test('no literal name is shared by the two stacks', () => {
  const [prod, staging] = templates.map(namesIn);
  expect(prod!.size).toBeGreaterThan(3);
  expect([...prod!].filter((name) => staging!.has(name))).toEqual([]);
});

test("each stack's alarms read only its own namespace and service", () => {
  templates.forEach((template, i) => {
    const { namespace, service } = observabilityNames(Stack.of(stacks[i]!).stackName);
    const alarms = Object.values(template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const metrics = alarms.flatMap((alarm) => [
      ...(alarm.Properties.Namespace ? [alarm.Properties] : []),
      ...(alarm.Properties.Metrics ?? []).flatMap((m: any) => (m.MetricStat ? [m.MetricStat.Metric] : [])),
    ]);
    const gateway = metrics.filter((m: any) => !String(m.Namespace).startsWith('AWS/'));
    expect(gateway.length).toBeGreaterThan(0);
    for (const metric of gateway) {
      expect(metric.Namespace).toBe(namespace);
      const dims = (metric.Dimensions ?? []) as { Name: string; Value: string }[];
      expect(dims.find((d) => d.Name === 'service')?.Value).toBe(service);
    }
  });
});

test('each function files metrics and logs under its own stack', () => {
  templates.forEach((template, i) => {
    const { namespace, service } = observabilityNames(Stack.of(stacks[i]!).stackName);
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(20);
    for (const fn of functions) {
      const env = fn.Properties.Environment?.Variables ?? {};
      if (env.POWERTOOLS_SERVICE_NAME === undefined) continue; // CDK's own helper functions
      expect([env.POWERTOOLS_SERVICE_NAME, env.POWERTOOLS_METRICS_NAMESPACE]).toEqual([service, namespace]);
    }
  });
});

test('the default stack keeps the names it always had', () => {
  expect(observabilityNames('AiGateway')).toEqual({ namespace: 'AiGateway', service: 'ai-gateway' });
  expect(observabilityNames('AiGatewayStaging').service).toBe('ai-gateway-staging');
  expect(observabilityNames('gw_prod-2').service).toBe('gw-prod-2');
});
