import { ArnFormat, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { JOB_TASK_FUNCTIONS } from '../../lib/constructs/job-poller-definition.js';
import { SESSION_TASK_FUNCTIONS } from '../../lib/constructs/session-runner-definition.js';
import { USAGE_PIPELINE_FUNCTIONS } from '../../lib/constructs/usage-pipeline.js';
import {
  build,
  endpointOf,
  logicalIdOf,
  manifestRoutes,
  PROVIDER_KEY_SECRETS_ARN,
  WEBHOOK_SECRETS_ARN,
  BEDROCK_MODELS_ARN,
  BEDROCK_PROFILES_ARN,
  REGION,
  STACK_NAME,
} from './support.js';

// The manifest has a streaming route (chat completions) and provider-key routes, so it exercises every construct.
const fullProps = {
  routes: manifestRoutes,
  corsOrigins: ['https://app.example.com'],
};
const PROVIDER_KEY_FINDING = `AwsSolutions-IAM5[Resource::${PROVIDER_KEY_SECRETS_ARN}]`;
const WEBHOOK_SECRETS_FINDING = `AwsSolutions-IAM5[Resource::${WEBHOOK_SECRETS_ARN}]`;
// Reading a key opens a tenant session: only creating and deleting touch the prefix with the role's own.
const providerKeyRoutes = manifestRoutes.filter((route) =>
  route.grants.some((grant) => grant === 'providerKeys:create' || grant === 'providerKeys:delete'),
);

/** Every acknowledgement in the tree, as "<construct path> <rule id>" → reason. */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.set(`${construct.node.path} ${id.replace(/^annotation::/i, '')}`, reason);
      }
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  test('the whole stack synthesizes with no unacknowledged finding', () => {
    const { app, stack } = build(fullProps);
    expect(() => app.synth()).not.toThrow();
    // The pack's own report, independent of how CDK surfaces it: no errors and no warnings.
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  test('with the optional context set (guardrail, prompt service, image describer) there is still no finding', () => {
    const { app, stack } = build({
      ...fullProps,
      promptServiceUrl: 'https://prompts.example.com',
      guardrail: { id: 'abc123def456', version: '1' },
      imageDescriberModel: 'claude',
    });
    expect(() => app.synth()).not.toThrow();
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  test('with a moderation API instead of the guardrail (its key secret acknowledged) there is still no finding', () => {
    const { app, stack } = build({ ...fullProps, moderationUrl: 'https://api.openai.com/v1' });
    expect(() => app.synth()).not.toThrow();
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  test('each of the three secrets carries its own SMG4 acknowledgement', () => {
    const { stack } = build(fullProps);
    const acks = acknowledgements(stack);
    const smg4 = [...acks.keys()]
      .filter((key) => key.endsWith(' AwsSolutions-SMG4'))
      .map((key) => key.split(' ')[0]!)
      .sort();
    expect(smg4).toEqual(
      [stack.secrets.adminToken, stack.secrets.platformKeys, stack.secrets.promptServiceKey]
        .map((secret) => secret.node.path)
        .sort(),
    );
    expect(acks.get(`${stack.secrets.promptServiceKey.node.path} AwsSolutions-SMG4`)).toMatch(/prompt/);
  });

  test('an unacknowledged finding makes synthesis throw, so the check cannot pass silently', () => {
    expect(() =>
      build(fullProps, {
        mutate: (stack) => {
          // A classic table without point-in-time recovery: AwsSolutions-DDB3.
          new Table(stack, 'Unprotected', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
        },
      }),
    ).toThrow(/AwsSolutions-DDB3/);
  });

  test('the X-Ray acknowledgement does not cover other wildcard resources on a function role', () => {
    expect(() =>
      build(fullProps, {
        mutate: (stack) => {
          const { role } = endpointOf(stack, 'health');
          new Policy(role, 'TooBroad', {
            roles: [role],
            statements: [new PolicyStatement({ actions: ['dynamodb:GetItem'], resources: ['*'] })],
          });
        },
      }),
    ).toThrow(/AwsSolutions-IAM5\[Resource::\*\]/);
  });

  test('the provider-key acknowledgement covers only the prefix, only where a providerKeys grant put it', () => {
    const wider = `arn:aws:secretsmanager:${REGION}:123456789012:secret:${STACK_NAME}*`;
    // A broader secret pattern on a role that does hold the provider-key prefix.
    expect(() =>
      build(fullProps, {
        mutate: (stack) => {
          const { role } = endpointOf(stack, 'chat-completions');
          new Policy(role, 'TooBroad', {
            roles: [role],
            statements: [new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [wider] })],
          });
        },
      }),
    ).toThrow(/AwsSolutions-IAM5\[Resource::arn:aws:secretsmanager:[^\]]*:secret:Gateway\*\]/);
    // The exact prefix on a role without a providerKeys grant.
    expect(() =>
      build(fullProps, {
        mutate: (stack) => {
          const { role } = endpointOf(stack, 'health');
          const prefix = stack.formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${stack.providerKeySecretPrefix}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          });
          new Policy(role, 'Prefix', {
            roles: [role],
            statements: [new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [prefix] })],
          });
        },
      }),
    ).toThrow(/AwsSolutions-IAM5\[Resource::arn:aws:secretsmanager:[^\]]*provider-keys\/\*\]/);
  });

  test('acknowledgements are the reviewed set, each with a specific reason', () => {
    const { stack } = build(fullProps);
    const acks = acknowledgements(stack);
    const rules = [...new Set([...acks.keys()].map((key) => key.split(' ')[1]!))].sort();
    expect(rules).toEqual(
      [
        'AwsSolutions-APIG2',
        'AwsSolutions-APIG4',
        'AwsSolutions-COG2',
        'AwsSolutions-COG4',
        // Essentials, not Plus: threat protection would see only the login function's addresses.
        'AwsSolutions-COG8',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        // AWS Backup's role for the daily table backups.
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
        'AwsSolutions-IAM5[Resource::*]',
        PROVIDER_KEY_FINDING,
        // Accounts' webhook signing secrets, made at runtime under their own prefix.
        WEBHOOK_SECRETS_FINDING,
        // Bedrock's models and this region's inference profiles, for the routes that call chat models.
        `AwsSolutions-IAM5[Resource::${BEDROCK_MODELS_ARN}]`,
        `AwsSolutions-IAM5[Resource::${BEDROCK_PROFILES_ARN}]`,
        'AwsSolutions-SMG4',
        // The usage exports: the access log bucket logs nowhere, and DynamoDB names an export's objects and ARN.
        'AwsSolutions-S1',
        `AwsSolutions-IAM5[Resource::<${logicalIdOf(stack.usageExports.bucket)}.Arn>/incremental/*]`,
        `AwsSolutions-IAM5[Resource::<${logicalIdOf(stack.tables.get('usage').table)}.Arn>/export/*]`,
        // The usage aggregator's on-failure queue is itself a dead-letter destination.
        'AwsSolutions-SQS3',
      ].sort(),
    );
    for (const [where, reason] of acks) {
      expect([where, reason.length >= 80]).toEqual([where, true]);
    }
    // The X-Ray acknowledgement sits only on the X-Ray default policies, never on a whole function or the stack:
    // one per route function, one per job and session task function, one per usage pipeline function, the
    // account role custom resource's function, and the job poller's and session runner's machines (X-Ray and
    // log delivery).
    const pathsOf = (rule: string) =>
      [...acks.keys()].filter((key) => key.split(' ')[1] === rule).map((key) => key.split(' ')[0]!);
    const exportPolicy = stack.usageExports.stateMachine.role.node.tryFindChild('DefaultPolicy')!.node.path;
    const xrayPaths = pathsOf('AwsSolutions-IAM5[Resource::*]').filter((path) => path !== exportPolicy);
    expect(pathsOf('AwsSolutions-IAM5[Resource::*]')).toContain(exportPolicy);
    expect(xrayPaths.length).toBe(
      fullProps.routes.length +
        Object.keys(JOB_TASK_FUNCTIONS).length +
        Object.keys(SESSION_TASK_FUNCTIONS).length +
        Object.keys(USAGE_PIPELINE_FUNCTIONS).length +
        1 /* the budget webhook consumer */ +
        3,
    );
    // A function's sits on its role (the X-Ray statement is in the role's inline policy); a machine's on its default policy.
    for (const path of xrayPaths) expect(path).toMatch(/\/Role\/(Resource|DefaultPolicy)$/);
    // The provider-key prefix acknowledgement sits on the role resource of exactly the routes that
    // create or delete keys, and on the tenant-access role, whose sessions alone read them.
    expect(providerKeyRoutes.length).toBeGreaterThan(0);
    expect(pathsOf(PROVIDER_KEY_FINDING).sort()).toEqual(
      [
        ...providerKeyRoutes.map((route) => endpointOf(stack, route.id).role.node.defaultChild!.node.path),
        stack.tenantAccess.role.node.defaultChild!.node.path,
      ].sort(),
    );
    for (const path of pathsOf(PROVIDER_KEY_FINDING)) expect(path).toMatch(/\/Role\/Resource$/);
    // The webhook secrets' prefix: the two secret routes, the job poller's Notify task and the budget
    // webhook consumer, nothing else.
    expect(pathsOf(WEBHOOK_SECRETS_FINDING).sort()).toEqual(
      [
        endpointOf(stack, 'webhooks-secret-get').role.node.defaultChild!.node.path,
        endpointOf(stack, 'webhooks-secret-rotate').role.node.defaultChild!.node.path,
        stack.jobPoller.notify.role.node.defaultChild!.node.path,
        stack.budgetNotices.consumer!.role.node.defaultChild!.node.path,
      ].sort(),
    );
    // The S1 acknowledgement sits on the access log bucket alone; the exports bucket is logged.
    expect(pathsOf('AwsSolutions-S1')).toEqual([stack.usageExports.accessLogBucket.node.path]);
    for (const policy of ['AWSBackupServiceRolePolicyForBackup', 'AWSBackupServiceRolePolicyForRestores'])
      expect(pathsOf(`AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`)).toEqual(
        [`${STACK_NAME}/Backups/Tables`],
      );
    expect(pathsOf('AwsSolutions-SQS3')).toEqual([stack.usagePipeline.aggregatorFailures.node.defaultChild!.node.path]);
    for (const route of providerKeyRoutes) {
      const reason = acks.get(
        `${endpointOf(stack, route.id).role.node.defaultChild!.node.path} ${PROVIDER_KEY_FINDING}`,
      )!;
      expect(reason).toContain(`${STACK_NAME}/provider-keys/`);
      expect(reason).toMatch(/runtime/);
    }
  });

  test('with the web ACL turned off, the WAF finding is acknowledged with the reason', () => {
    const { stack } = build({ ...fullProps, waf: false });
    const reasons = [...acknowledgements(stack)].filter(([key]) => key.endsWith('AwsSolutions-APIG3'));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]![1]).toMatch(/waf=off/);
  });

  test('with a web ACL configured, the WAF finding is satisfied rather than acknowledged', () => {
    const { stack } = build({
      ...fullProps,
      webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gateway/abc',
    });
    expect([...acknowledgements(stack).keys()].some((key) => key.endsWith('AwsSolutions-APIG3'))).toBe(false);
  });
});
