import { AwsSolutionsChecks } from 'cdk-nag';
import type { StreamingComputeConfig } from '../../lib/constructs/streaming-capacity.js';
import { AWS_PRICES } from '../../lib/cost/aws-prices.js';
import { environmentsPerInstance } from '../../lib/stream-sizing.js';
import { build, functionLogicalId, logicalIdOf, manifestRoutes, type Built } from './support.js';

/**
 * `-c streamingCompute=managed-instances`: the streaming routes' functions on a Lambda Managed
 * Instances capacity provider. The shape Lambda requires (arm64 instances for arm64 functions,
 * at least 2,048 MB, a VPC with a way out) and what the mode promises (one environment serving
 * many streams, a bounded fleet, nothing in but HTTPS out) are read from the template.
 */

/** Written out independently of lib/: what docs/deployment.md documents for the mode. */
const DOCUMENTED = {
  instanceType: 'c7g.xlarge',
  maxVcpus: 48,
  memoryMb: 2048,
  memoryGiBPerVcpu: 2,
  perEnvironmentConcurrency: 64,
  minEnvironments: 3,
};

const managed = (more: Partial<Extract<StreamingComputeConfig, { mode: 'managed-instances' }>> = {}) =>
  ({
    mode: 'managed-instances',
    routes: ['chat-completions'],
    network: 'create',
    instanceType: DOCUMENTED.instanceType,
    maxVcpus: DOCUMENTED.maxVcpus,
    ...more,
  }) as const;

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
const resources = (built: Built) => built.template.toJSON().Resources as Resources;
const ofType = (built: Built, type: string) => Object.entries(resources(built)).filter(([, r]) => r.Type === type);

describe('Managed Instances for the streaming routes', () => {
  const built = build({ streamingCompute: managed() });
  const [[providerId, provider]] = ofType(built, 'AWS::Lambda::CapacityProvider') as [[string, any]];

  test('one capacity provider: arm64 instances of the chosen type, a vCPU ceiling, scaling on CPU', () => {
    expect(ofType(built, 'AWS::Lambda::CapacityProvider')).toHaveLength(1);
    expect(provider.Properties.InstanceRequirements).toEqual({
      Architectures: ['arm64'],
      AllowedInstanceTypes: [DOCUMENTED.instanceType],
    });
    expect(provider.Properties.CapacityProviderScalingConfig).toMatchObject({
      MaxVCpuCount: DOCUMENTED.maxVcpus,
      ScalingPolicies: [{ PredefinedMetricType: 'LambdaCapacityProviderAverageCPUUtilization' }],
    });
  });

  test('chat completions runs there: many streams an environment, 2 GiB and one vCPU, three kept warm', () => {
    const fn = resources(built)[functionLogicalId(built.stack, 'chat-completions')]!.Properties!;
    expect(fn.MemorySize).toBe(DOCUMENTED.memoryMb);
    expect(fn.Architectures).toEqual(['arm64']);
    expect(fn.CapacityProviderConfig).toEqual({
      LambdaManagedInstancesCapacityProviderConfig: {
        CapacityProviderArn: { 'Fn::GetAtt': [providerId, 'Arn'] },
        PerExecutionEnvironmentMaxConcurrency: DOCUMENTED.perEnvironmentConcurrency,
        ExecutionEnvironmentMemoryGiBPerVCpu: DOCUMENTED.memoryGiBPerVcpu,
      },
    });
    expect(fn.FunctionScalingConfig).toEqual({ MinExecutionEnvironments: DOCUMENTED.minEnvironments });
    // Its concurrency is the capacity provider's, not a share of the account's Lambda concurrency.
    expect(fn.ReservedConcurrentExecutions).toBeUndefined();
  });

  test('the other streaming routes stay on-demand, at their manifest memory and reservations', () => {
    for (const route of manifestRoutes.filter((r) => r.streaming && r.id !== 'chat-completions')) {
      const fn = resources(built)[functionLogicalId(built.stack, route.id)]!.Properties!;
      expect([route.id, fn.CapacityProviderConfig, fn.MemorySize]).toEqual([route.id, undefined, route.memoryMb]);
      expect(fn.ReservedConcurrentExecutions).toBeGreaterThan(0);
    }
  });

  test('a created VPC: instances in private subnets, one NAT gateway out, DynamoDB through a gateway endpoint', () => {
    const vpc = built.stack.streamingCapacity!.vpc!;
    expect(provider.Properties.VpcConfig.SubnetIds).toEqual(
      vpc.privateSubnets.map((subnet) => ({ Ref: logicalIdOf(subnet) })),
    );
    expect(ofType(built, 'AWS::EC2::NatGateway')).toHaveLength(1);
    built.template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
    const [[, endpoint]] = ofType(built, 'AWS::EC2::VPCEndpoint') as [[string, any]];
    expect(JSON.stringify(endpoint.Properties.ServiceName)).toContain('dynamodb');
    // Rejected traffic is logged, to a log group with a retention.
    built.template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });

  test('the instances accept nothing and send only HTTPS', () => {
    const [groupRef] = provider.Properties.VpcConfig.SecurityGroupIds as [{ 'Fn::GetAtt': [string, string] }];
    const group = resources(built)[groupRef['Fn::GetAtt'][0]]!.Properties!;
    expect(group.SecurityGroupIngress).toBeUndefined();
    expect(group.SecurityGroupEgress).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, CidrIp: '0.0.0.0/0' }),
    ]);
  });

  test("the operator role: Lambda's EC2 operator policy, trusted by Lambda for this account only", () => {
    const roleId = provider.Properties.PermissionsConfig.CapacityProviderOperatorRoleArn['Fn::GetAtt'][0] as string;
    const role = resources(built)[roleId]!.Properties!;
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'lambda.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      }),
    ]);
    expect(JSON.stringify(role.ManagedPolicyArns)).toContain('AWSLambdaManagedEC2ResourceOperator');
  });

  test('the stack stays within the resource budget and has no unacknowledged cdk-nag finding', () => {
    expect(Object.keys(resources(built)).length).toBeLessThanOrEqual(450);
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
  });
});

describe('Managed Instances in the operator’s subnets, and which routes go there', () => {
  test("existing subnets: no VPC is made, the security group is made in the operator's VPC", () => {
    const built = build({
      streamingCompute: managed({
        network: { subnetIds: ['subnet-0abc1234', 'subnet-0def5678'], vpcId: 'vpc-0abc1234' },
      }),
    });
    expect(ofType(built, 'AWS::EC2::VPC')).toHaveLength(0);
    expect(ofType(built, 'AWS::EC2::NatGateway')).toHaveLength(0);
    const [[, provider]] = ofType(built, 'AWS::Lambda::CapacityProvider') as [[string, any]];
    expect(provider.Properties.VpcConfig.SubnetIds).toEqual(['subnet-0abc1234', 'subnet-0def5678']);
    built.template.hasResourceProperties('AWS::EC2::SecurityGroup', { VpcId: 'vpc-0abc1234' });
  });

  test("the operator's security groups are used as given", () => {
    const built = build({
      streamingCompute: managed({ network: { subnetIds: ['subnet-0abc1234'], securityGroupIds: ['sg-0abc1234'] } }),
    });
    const [[, provider]] = ofType(built, 'AWS::Lambda::CapacityProvider') as [[string, any]];
    expect(provider.Properties.VpcConfig.SecurityGroupIds).toEqual(['sg-0abc1234']);
    expect(ofType(built, 'AWS::EC2::SecurityGroup')).toHaveLength(0);
  });

  test('`streaming` puts every streaming route there and no other', () => {
    const built = build({ streamingCompute: managed({ routes: 'streaming' }) });
    for (const route of manifestRoutes) {
      const fn = resources(built)[functionLogicalId(built.stack, route.id)]!.Properties!;
      expect([route.id, fn.CapacityProviderConfig !== undefined]).toEqual([route.id, route.streaming]);
    }
    expect(Object.keys(resources(built)).length).toBeLessThanOrEqual(450);
  });

  test('a route that does not stream, or an unknown one, is refused by name', () => {
    expect(() => build({ streamingCompute: managed({ routes: ['keys-list'] }) })).toThrow(
      /managedInstancesRoutes names routes that do not stream: keys-list/,
    );
    expect(() => build({ streamingCompute: managed({ routes: ['chat'] }) })).toThrow(
      /managedInstancesRoutes names routes that do not exist: chat/,
    );
  });

  test('a reservation for a route on the instances is refused: the capacity provider bounds it', () => {
    expect(() => build({ streamingCompute: managed(), reservedConcurrency: { 'chat-completions': 50 } })).toThrow(
      /reservedConcurrency names routes on Managed Instances \(chat-completions\)/,
    );
  });
});

describe('execution environments an instance holds', () => {
  const environment = { memoryMb: 2048, memoryGiBPerVcpu: 2 };
  // Written out: an instance keeps one vCPU and 1 GiB for itself; an environment is 1 vCPU and 2 GiB.
  test.each([
    ['c7g.large', 1],
    ['c7g.xlarge', 3],
    ['c7g.2xlarge', 7],
    ['m7g.large', 1],
    ['m7g.xlarge', 3],
  ] as const)('a %s holds %i', (type, expected) => {
    expect(environmentsPerInstance(AWS_PRICES.ec2[type], environment)).toBe(expected);
  });

  test('memory bounds it when environments have more GiB per vCPU', () => {
    expect(environmentsPerInstance(AWS_PRICES.ec2['c7g.xlarge'], { memoryMb: 4096, memoryGiBPerVcpu: 4 })).toBe(1);
  });
});
