import { Stack, Validations } from 'aws-cdk-lib';
import {
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  InstanceType,
  IpAddresses,
  Peer,
  Port,
  SecurityGroup,
  Subnet,
  SubnetType,
  Vpc,
  FlowLogDestination,
  type ISecurityGroup,
  type ISubnet,
} from 'aws-cdk-lib/aws-ec2';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  CapacityProvider,
  InstanceTypeFilter,
  ScalingOptions,
  TargetTrackingScalingPolicy,
  type IFunction,
} from 'aws-cdk-lib/aws-lambda';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { MANAGED_INSTANCES_SIZING } from '../stream-sizing.js';
import {
  DEFAULT_MANAGED_INSTANCES_EGRESS,
  hardenNatInstances,
  natInstanceProvider,
  type ManagedInstancesEgress,
} from './nat-instances.js';
import { retainedLogGroup } from './retained-log-group.js';

/**
 * Where the capacity provider's instances run: subnets of an existing VPC (their route to the
 * internet is the operator's: a NAT gateway or an egress-only path) with either security groups
 * of the operator's or the VPC's id so that the stack makes one, or `create`: a VPC of the
 * stack's own, two Availability Zones, with the egress `StreamingCapacityProps.egress` chooses.
 */
export type ManagedInstancesNetwork =
  | 'create'
  | {
      readonly subnetIds: readonly string[];
      readonly securityGroupIds?: readonly string[];
      readonly vpcId?: string;
    };

/** Where the streaming routes run: on-demand Lambda (the default), or Lambda Managed Instances. */
export type StreamingComputeConfig =
  | { readonly mode: 'lambda' }
  | ({
      readonly mode: 'managed-instances';
      /** The streaming routes moved to the instances; `streaming` for all of them. */
      readonly routes: readonly string[] | 'streaming';
    } & Omit<StreamingCapacityProps, 'logRetention'>);

export const STREAMING_COMPUTE_MODES = ['lambda', 'managed-instances'] as const;

/**
 * The default on the instances: chat completions, which carries the long streams the mode is for.
 * Each function on the instances keeps its own three execution environments warm, so every further
 * route adds to the idle bill (docs/deployment.md, "Compute for the streaming routes").
 */
export const DEFAULT_MANAGED_INSTANCES_ROUTES: readonly string[] = ['chat-completions'];
/** Four vCPUs: three execution environments of one vCPU each after the instance's own reserve. */
export const DEFAULT_MANAGED_INSTANCES_TYPE = 'c7g.xlarge';
/** The capacity provider's ceiling by default: 12 such instances. */
export const DEFAULT_MANAGED_INSTANCES_MAX_VCPUS = 48;
/** The address range of the VPC the stack makes. */
const CREATED_VPC_CIDR = '10.0.0.0/16';
/** The capacity provider's smallest allowed ceiling. */
export const MIN_MANAGED_INSTANCES_MAX_VCPUS = 12;

export interface StreamingCapacityProps {
  readonly network: ManagedInstancesNetwork;
  /** The one instance type the provider may launch (Graviton: the functions are arm64). */
  readonly instanceType: string;
  /** The provider's ceiling: at most this many vCPUs running, whatever the load (at least 12). */
  readonly maxVcpus: number;
  /**
   * The created VPC's way out: a NAT instance a zone (the default) or one NAT gateway. Only with
   * `network: 'create'`: the egress of the operator's subnets is theirs.
   */
  readonly egress?: ManagedInstancesEgress;
  /** Retention of the created VPC's flow log (rejected traffic). */
  readonly logRetention?: RetentionDays;
}

/**
 * The streaming routes' Lambda Managed Instances: a capacity provider whose EC2 instances Lambda
 * runs in the stack's account, one execution environment serving many streams at once (they
 * mostly wait on the upstream model). The instances reach the upstreams and AWS's APIs over
 * HTTPS through the VPC's egress; DynamoDB through a gateway endpoint, which costs nothing and
 * keeps the ledger's writes off the NAT (a NAT gateway charges per GB).
 */
export class StreamingCapacity extends Construct {
  readonly provider: CapacityProvider;
  /** Undefined when the operator's subnets are used. */
  readonly vpc?: Vpc;
  readonly subnets: readonly ISubnet[];
  /** The NAT instances' recovery alarms; none with a NAT gateway or the operator's subnets. */
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: StreamingCapacityProps) {
    super(scope, id);
    let securityGroups: ISecurityGroup[];
    let alarms: Alarm[] = [];
    if (props.network === 'create') {
      const egress = props.egress ?? DEFAULT_MANAGED_INSTANCES_EGRESS;
      const natInstances = egress.mode === 'nat-instances' ? natInstanceProvider(egress.instanceType) : undefined;
      const vpc = (this.vpc = new Vpc(this, 'Vpc', {
        // CDK's default range, written out: the NAT instances' group admits it by value.
        ipAddresses: IpAddresses.cidr(CREATED_VPC_CIDR),
        maxAzs: 2,
        // NAT instances: one a zone, each zone's instances leaving through their own (no cross-zone
        // data, no single zone of egress). A NAT gateway: one, as a gateway a zone doubles its idle
        // cost (docs/deployment.md, "Compute for the streaming routes").
        ...(natInstances ? { natGatewayProvider: natInstances } : { natGateways: 1 }),
        subnetConfiguration: [
          { name: 'Public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
          { name: 'Instances', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        ],
        gatewayEndpoints: { DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB } },
        // Rejected connections only: what a security review asks of the VPC, at a fraction of the
        // ingestion an ALL flow log would cost for every stream's bytes.
        flowLogs: {
          Rejected: {
            destination: FlowLogDestination.toCloudWatchLogs(retainedLogGroup(this, 'FlowLogs', props.logRetention)),
            trafficType: FlowLogTrafficType.REJECT,
          },
        },
        // No custom resource to empty the default security group: nothing is placed in it.
        restrictDefaultSecurityGroup: false,
      }));
      if (natInstances) alarms = hardenNatInstances(this, natInstances, CREATED_VPC_CIDR);
      this.subnets = vpc.privateSubnets;
      securityGroups = [this.securityGroup(vpc)];
    } else {
      if (props.egress)
        throw new Error(
          "managedInstancesEgress is for the VPC the stack makes: the egress of the operator's subnets is theirs",
        );
      const { subnetIds, securityGroupIds, vpcId } = props.network;
      this.subnets = subnetIds.map((subnetId, i) => Subnet.fromSubnetId(this, `Subnet${i}`, subnetId));
      if (securityGroupIds && securityGroupIds.length > 0) {
        securityGroups = securityGroupIds.map((sg, i) => SecurityGroup.fromSecurityGroupId(this, `Group${i}`, sg));
      } else if (vpcId) {
        const vpc = Vpc.fromVpcAttributes(this, 'Vpc', { vpcId, availabilityZones: [Stack.of(this).region] });
        securityGroups = [this.securityGroup(vpc)];
      } else {
        throw new Error('managed instances in existing subnets need security group ids or the VPC id to make one in');
      }
    }
    this.alarms = alarms;

    // The operator role Lambda assumes to launch and end the instances: AWS's managed policy for
    // exactly that, trusted by Lambda for this account only (no confused deputy).
    const operatorRole = new Role(this, 'OperatorRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      }),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('AWSLambdaManagedEC2ResourceOperator')],
      description: 'Lambda Managed Instances: launches and ends the streaming routes instances',
    });
    Validations.of(operatorRole.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]',
      reason:
        'AWSLambdaManagedEC2ResourceOperator is the policy Lambda documents for a capacity provider operator role: ' +
        'the EC2 calls Lambda makes to run the instances, kept current by AWS as the service changes.',
    });

    this.provider = new CapacityProvider(this, 'Provider', {
      subnets: [...this.subnets],
      securityGroups,
      operatorRole,
      architectures: [Architecture.ARM_64],
      instanceTypeFilter: InstanceTypeFilter.allow([new InstanceType(props.instanceType)]),
      maxVCpuCount: props.maxVcpus,
      scalingOptions: ScalingOptions.manual([
        TargetTrackingScalingPolicy.cpuUtilization(MANAGED_INSTANCES_SIZING.targetCpuUtilization * 100),
      ]),
    });
  }

  /** Puts a function on the instances, with the streams per environment the sizing allows. */
  addFunction(fn: IFunction): void {
    const sizing = MANAGED_INSTANCES_SIZING;
    this.provider.addFunction(fn, {
      perExecutionEnvironmentMaxConcurrency: sizing.perEnvironmentConcurrency,
      executionEnvironmentMemoryGiBPerVCpu: sizing.memoryGiBPerVcpu,
      latestPublishedScalingConfig: { minExecutionEnvironments: sizing.minExecutionEnvironments },
    });
  }

  private securityGroup(vpc: Vpc | ReturnType<typeof Vpc.fromVpcAttributes>): SecurityGroup {
    const group = new SecurityGroup(this, 'Instances', {
      vpc,
      description: 'Lambda Managed Instances of the streaming routes: HTTPS out, nothing in',
      allowAllOutbound: false,
    });
    // Upstream models, the prompt and theme services, and AWS's APIs all speak HTTPS.
    group.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to upstreams and AWS APIs');
    return group;
  }
}
