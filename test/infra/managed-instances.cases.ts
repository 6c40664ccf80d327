import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { StreamingComputeConfig } from '../../lib/constructs/streaming-capacity.js';
import { AWS_PRICES } from '../../lib/cost/aws-prices.js';
import { environmentsPerInstance } from '../../lib/stream-sizing.js';
import { build, functionLogicalId, logicalIdOf, manifestRoutes, REGION, type Built } from './support.js';

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
  natInstanceType: 't4g.small',
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
/** A NAT instance forwards others' packets: its source/destination check is off. */
const natInstancesOf = (built: Built) =>
  ofType(built, 'AWS::EC2::Instance').filter(([, instance]) => instance.Properties!.SourceDestCheck === false);

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

  test('a created VPC: instances in private subnets, a NAT instance a zone out, DynamoDB through a gateway endpoint', () => {
    const vpc = built.stack.streamingCapacity!.vpc!;
    expect(provider.Properties.VpcConfig.SubnetIds).toEqual(
      vpc.privateSubnets.map((subnet) => ({ Ref: logicalIdOf(subnet) })),
    );
    expect(ofType(built, 'AWS::EC2::NatGateway')).toHaveLength(0);
    expect(natInstancesOf(built)).toHaveLength(2);
    built.template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
    const [[, endpoint]] = ofType(built, 'AWS::EC2::VPCEndpoint') as [[string, any]];
    expect(JSON.stringify(endpoint.Properties.ServiceName)).toContain('dynamodb');
    // Rejected traffic is logged, to a log group with a retention.
    built.template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });

  test('each private subnet leaves through the NAT instance of its own zone', () => {
    const nats = new Map(natInstancesOf(built));
    const defaultRoutes = ofType(built, 'AWS::EC2::Route').filter(([, route]) => route.Properties!.InstanceId);
    expect(defaultRoutes).toHaveLength(2);
    const zoneOfSubnet = (subnetId: string) => JSON.stringify(resources(built)[subnetId]!.Properties!.AvailabilityZone);
    const used = defaultRoutes.map(([, route]) => {
      expect(route.Properties!.DestinationCidrBlock).toBe('0.0.0.0/0');
      const natId = route.Properties!.InstanceId.Ref as string;
      const [[, association]] = ofType(built, 'AWS::EC2::SubnetRouteTableAssociation').filter(
        ([, a]) => a.Properties!.RouteTableId.Ref === route.Properties!.RouteTableId.Ref,
      ) as [[string, any]];
      const subnetId = association.Properties.SubnetId.Ref as string;
      expect(provider.Properties.VpcConfig.SubnetIds).toContainEqual({ Ref: subnetId });
      expect(JSON.stringify(nats.get(natId)!.Properties!.AvailabilityZone)).toBe(zoneOfSubnet(subnetId));
      return natId;
    });
    // Two zones, two different instances: no zone's streams depend on the other zone.
    expect(new Set(used).size).toBe(2);
    expect(JSON.stringify(nats.get(used[0]!)!.Properties!.AvailabilityZone)).not.toBe(
      JSON.stringify(nats.get(used[1]!)!.Properties!.AvailabilityZone),
    );
  });

  test('the NAT instances: t4g.small on arm64 Amazon Linux 2023 resolved at deploy, IMDSv2, encrypted root', () => {
    const parameters = built.template.toJSON().Parameters as Record<string, { Type: string; Default: string }>;
    for (const [, nat] of natInstancesOf(built)) {
      const props = nat.Properties!;
      expect(props.InstanceType).toBe(DOCUMENTED.natInstanceType);
      expect(props.SourceDestCheck).toBe(false);
      expect(props.MetadataOptions).toMatchObject({ HttpTokens: 'required' });
      expect(props.BlockDeviceMappings).toEqual([
        expect.objectContaining({ DeviceName: '/dev/xvda', Ebs: expect.objectContaining({ Encrypted: true }) }),
      ]);
      expect(props.KeyName).toBeUndefined();
      expect(props.NetworkInterfaces).toEqual([expect.objectContaining({ AssociatePublicIpAddress: true })]);
      // The image is an SSM public parameter CloudFormation reads at each deploy: no lookup at synth.
      const parameter = parameters[props.ImageId.Ref as string]!;
      expect(parameter.Type).toBe('AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>');
      expect(parameter.Default).toMatch(/^\/aws\/service\/ami-amazon-linux-latest\/al2023-ami-.*arm64$/);
      // The NAT rules survive the reboot and recovery the alarms trigger: saved without AL2023's absent `service`.
      const boot = JSON.stringify(props.UserData);
      expect(boot).toContain('iptables-save > /etc/sysconfig/iptables');
      expect(boot).not.toContain('service iptables save');
    }
    expect(built.template.toJSON().Metadata?.['aws:cdk:lookups']).toBeUndefined();
  });

  test("the NAT instances' group admits HTTPS from the VPC's range and nothing from the internet", () => {
    const [[, vpc]] = ofType(built, 'AWS::EC2::VPC') as [[string, any]];
    const groupIds = new Set(
      natInstancesOf(built).flatMap(([, nat]) =>
        nat.Properties!.NetworkInterfaces[0].GroupSet.map((ref: any) => ref['Fn::GetAtt'][0] as string),
      ),
    );
    expect(groupIds.size).toBe(1);
    const group = resources(built)[[...groupIds][0]!]!.Properties!;
    expect(group.SecurityGroupIngress).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, CidrIp: vpc.Properties.CidrBlock }),
    ]);
  });

  test('each NAT instance is recovered when its host fails and rebooted when it fails itself; the topic hears', () => {
    const topicId = logicalIdOf(built.stack.monitoring.topic);
    for (const [natId] of natInstancesOf(built)) {
      const alarms = ofType(built, 'AWS::CloudWatch::Alarm')
        .map(([, alarm]) => alarm.Properties!)
        .filter((alarm) => alarm.Dimensions?.[0]?.Value?.Ref === natId);
      expect(alarms.map((alarm) => [alarm.MetricName, alarm.AlarmActions]).sort()).toEqual([
        ['StatusCheckFailed_Instance', [`arn:aws:automate:${REGION}:ec2:reboot`, { Ref: topicId }]],
        ['StatusCheckFailed_System', [`arn:aws:automate:${REGION}:ec2:recover`, { Ref: topicId }]],
      ]);
      for (const alarm of alarms)
        expect(alarm).toMatchObject({ Namespace: 'AWS/EC2', Period: 60, Threshold: 1, Statistic: 'Maximum' });
    }
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

  test('the NAT instances acknowledge only detailed monitoring and termination protection, with reasons', () => {
    const capacity = built.stack.streamingCapacity!;
    const acknowledged = capacity.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
          .map(([id, reason]) => [construct.node.path, id.replace(/^annotation::/i, ''), reason] as const),
      )
      .filter(([path]) => path.includes('NatInstance'));
    expect(acknowledged.map(([path, id]) => `${path.split('/').at(-3)} ${id}`).sort()).toEqual([
      'PublicSubnet1 AwsSolutions-EC28',
      'PublicSubnet1 AwsSolutions-EC29',
      'PublicSubnet2 AwsSolutions-EC28',
      'PublicSubnet2 AwsSolutions-EC29',
    ]);
    for (const [, id, reason] of acknowledged)
      expect([id, reason]).toEqual([id, expect.stringMatching(id.endsWith('EC28') ? /status checks/ : /replace/)]);
  });
});

describe('the created VPC with a NAT gateway instead, or a larger NAT instance', () => {
  test('nat-gateway: one NAT gateway both zones leave through, and no NAT instance', () => {
    const built = build({ streamingCompute: managed({ egress: { mode: 'nat-gateway' } }) });
    const [[gatewayId]] = ofType(built, 'AWS::EC2::NatGateway') as [[string, any]];
    expect(ofType(built, 'AWS::EC2::NatGateway')).toHaveLength(1);
    expect(ofType(built, 'AWS::EC2::Instance')).toHaveLength(0);
    const defaultRoutes = ofType(built, 'AWS::EC2::Route').filter(([, route]) => route.Properties!.NatGatewayId);
    expect(defaultRoutes.map(([, route]) => route.Properties!.NatGatewayId)).toEqual([
      { Ref: gatewayId },
      { Ref: gatewayId },
    ]);
    expect(
      ofType(built, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => alarm.Properties!.Namespace === 'AWS/EC2'),
    ).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(built.stack).violations).toEqual([]);
  });

  test('the NAT instance type is the one asked for', () => {
    const built = build({
      streamingCompute: managed({ egress: { mode: 'nat-instances', instanceType: 't4g.medium' } }),
    });
    expect(natInstancesOf(built).map(([, nat]) => nat.Properties!.InstanceType)).toEqual(['t4g.medium', 't4g.medium']);
  });

  test("an egress with the operator's subnets is refused: their way out is theirs", () => {
    expect(() =>
      build({
        streamingCompute: managed({
          network: { subnetIds: ['subnet-0abc1234'], vpcId: 'vpc-0abc1234' },
          egress: { mode: 'nat-gateway' },
        }),
      }),
    ).toThrow(/managedInstancesEgress is for the VPC the stack makes/);
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
    expect(ofType(built, 'AWS::EC2::Instance')).toHaveLength(0);
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
