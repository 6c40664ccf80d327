import { Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { build, endpointOf, manifestRoutes, syntheticRoute } from './support.js';

const streamed = syntheticRoute({ id: 'chat-completions', path: '/api/v1/chat/completions', streaming: true });
const fullProps = {
  routes: [...manifestRoutes, streamed],
  corsOrigins: ['https://app.example.com'],
};

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

  test('an unacknowledged finding makes synthesis throw, so the check cannot pass silently', () => {
    expect(() => build(fullProps, {
      mutate: (stack) => {
        // A classic table without point-in-time recovery: AwsSolutions-DDB3.
        new Table(stack, 'Unprotected', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
      },
    })).toThrow(/AwsSolutions-DDB3/);
  });

  test('the X-Ray acknowledgement does not cover other wildcard resources on a function role', () => {
    expect(() => build(fullProps, {
      mutate: (stack) => {
        const { role } = endpointOf(stack, 'health');
        new Policy(role, 'TooBroad', {
          roles: [role],
          statements: [new PolicyStatement({ actions: ['dynamodb:GetItem'], resources: ['*'] })],
        });
      },
    })).toThrow(/AwsSolutions-IAM5\[Resource::\*\]/);
  });

  test('acknowledgements are the reviewed set, each with a specific reason', () => {
    const { stack } = build(fullProps);
    const acks = acknowledgements(stack);
    const rules = [...new Set([...acks.keys()].map((key) => key.split(' ')[1]!))].sort();
    expect(rules).toEqual([
      'AwsSolutions-APIG2',
      'AwsSolutions-APIG3',
      'AwsSolutions-APIG4',
      'AwsSolutions-COG2',
      'AwsSolutions-COG4',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-SMG4',
    ]);
    for (const [where, reason] of acks) {
      expect([where, reason.length >= 80]).toEqual([where, true]);
    }
    // The wildcard acknowledgement sits only on the X-Ray default policies, never on a whole function or the stack.
    const wildcardPaths = [...acks.keys()].filter((key) => key.includes('IAM5')).map((key) => key.split(' ')[0]!);
    expect(wildcardPaths.length).toBe(fullProps.routes.length);
    for (const path of wildcardPaths) expect(path).toMatch(/\/Role\/DefaultPolicy$/);
  });

  test('with a web ACL configured, the WAF finding is satisfied rather than acknowledged', () => {
    const { stack } = build({
      ...fullProps,
      webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gateway/abc',
    });
    expect([...acknowledgements(stack).keys()].some((key) => key.endsWith('AwsSolutions-APIG3'))).toBe(false);
  });
});
