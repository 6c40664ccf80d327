import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Ec2Action, Ec2InstanceAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AmazonLinuxCpuType,
  InstanceType,
  MachineImage,
  NatProvider,
  NatTrafficDirection,
  Peer,
  Port,
  UserData,
  type CfnInstance,
  type Instance,
  type NatInstanceProviderV2,
} from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';

/**
 * How the instances of the VPC the stack makes for Lambda Managed Instances reach the internet:
 * a NAT instance in each Availability Zone (the default), or one NAT gateway (docs/deployment.md,
 * "Compute for the streaming routes", weighs the two).
 */
export type ManagedInstancesEgress =
  { readonly mode: 'nat-instances'; readonly instanceType: string } | { readonly mode: 'nat-gateway' };

export const MANAGED_INSTANCES_EGRESS_MODES = ['nat-instances', 'nat-gateway'] as const;

/**
 * Graviton and burstable: a NAT forwards packets and needs little CPU. Its 0.128 Gbps baseline a
 * direction carries about 1,500 streams of 10 KB/s at once, more than the default capacity
 * provider's ceiling puts in one zone (lib/cost/aws-prices.ts has the bandwidths).
 */
export const DEFAULT_NAT_INSTANCE_TYPE = 't4g.small';

export const DEFAULT_MANAGED_INSTANCES_EGRESS: ManagedInstancesEgress = Object.freeze({
  mode: 'nat-instances',
  instanceType: DEFAULT_NAT_INSTANCE_TYPE,
});

/**
 * Boot commands that make the instance a NAT, kept across reboots and recoveries: the install is
 * retried (dnf can race its own cache cleaning on first boot, aws-cdk issue 36717), the default
 * interface is read with `ip`, and the rules are saved with `iptables-save`, since AL2023 has no
 * `service` command for the iptables service to save them with. The ruleset the package ships
 * rejects all forwarding; flushing FORWARD leaves the security groups to decide what passes.
 */
export const NAT_INSTANCE_BOOT_COMMANDS: readonly string[] = Object.freeze([
  'until dnf install -y iptables-services; do echo "dnf install failed, retrying in 5 s"; sleep 5; done',
  'systemctl enable --now iptables',
  'echo "net.ipv4.ip_forward=1" > /etc/sysctl.d/90-nat-forwarding.conf',
  'sysctl -p /etc/sysctl.d/90-nat-forwarding.conf',
  'iptables -t nat -A POSTROUTING -o "$(ip route show default | awk \'{print $5; exit}\')" -j MASQUERADE',
  'iptables -F FORWARD',
  'iptables-save > /etc/sysconfig/iptables',
]);

/**
 * The provider a Vpc is given to put a NAT instance in each public subnet, its zone's private
 * subnets routing to it. Amazon Linux 2023 for arm64 from its SSM public parameter, which
 * CloudFormation resolves at each deploy: synthesis needs no lookup, and a deploy after AWS
 * publishes a new image replaces the instances with it.
 */
export function natInstanceProvider(instanceType: string): NatInstanceProviderV2 {
  return NatProvider.instanceV2({
    instanceType: new InstanceType(instanceType),
    machineImage: MachineImage.latestAmazonLinux2023({ cpuType: AmazonLinuxCpuType.ARM_64 }),
    // Nothing in from the internet; what is let in from the VPC is added once it exists.
    defaultAllowedTraffic: NatTrafficDirection.OUTBOUND_ONLY,
    // The instance's public address is the zone's egress.
    associatePublicIpAddress: true,
    userData: natUserData(),
  });
}

/**
 * Once the Vpc has made them: each NAT instance admits HTTPS from the VPC's range only (what the
 * Managed Instances' own group lets out), requires IMDSv2, encrypts its root volume, and is
 * recovered onto new hardware when its host fails and rebooted when its own checks fail.
 * Returns the alarms, for the stack to send them to its alarm topic as well.
 */
export function hardenNatInstances(scope: Construct, provider: NatInstanceProviderV2, vpcCidr: string): Alarm[] {
  // The range by value, not the VPC's attribute, so that cdk-nag can see it is not the internet.
  provider.connections.allowFrom(Peer.ipv4(vpcCidr), Port.tcp(443), "HTTPS from the VPC's instances, to forward");
  return provider.gatewayInstances.flatMap((instance, i) => {
    const cfn = instance.instance;
    cfn.metadataOptions = { httpTokens: 'required', httpEndpoint: 'enabled', httpPutResponseHopLimit: 1 };
    // AL2023's root device; the size stays the image's own, so a larger image never fails to launch.
    cfn.blockDeviceMappings = [
      { deviceName: '/dev/xvda', ebs: { encrypted: true, volumeType: 'gp3', deleteOnTermination: true } },
    ];
    acknowledgeNatInstance(cfn);
    return statusAlarms(scope, instance, i + 1);
  });
}

/**
 * Recover on a failed system check (the host: the instance moves to new hardware, keeping its id,
 * addresses and volume) and reboot on a failed instance check (its own OS or network stack).
 */
function statusAlarms(scope: Construct, instance: Instance, n: number): Alarm[] {
  const checks = [
    {
      id: 'System',
      metric: 'StatusCheckFailed_System',
      action: Ec2InstanceAction.RECOVER,
      periods: 2,
      doing: 'recovering',
    },
    // Three minutes: a reboot cuts every stream through the zone, so a passing glitch does not.
    {
      id: 'Instance',
      metric: 'StatusCheckFailed_Instance',
      action: Ec2InstanceAction.REBOOT,
      periods: 3,
      doing: 'rebooting',
    },
  ] as const;
  return checks.map((check) => {
    const alarm = new Alarm(scope, `NatInstance${n}${check.id}Check`, {
      metric: new Metric({
        namespace: 'AWS/EC2',
        metricName: check.metric,
        dimensionsMap: { InstanceId: instance.instanceId },
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: check.periods,
      treatMissingData: TreatMissingData.MISSING,
      alarmDescription: `AI gateway: NAT instance ${n} ${check.id.toLowerCase()} status check failed (${check.doing} it)`,
    });
    alarm.addAlarmAction(new Ec2Action(check.action));
    return alarm;
  });
}

function natUserData(): UserData {
  const userData = UserData.forLinux();
  userData.addCommands(...NAT_INSTANCE_BOOT_COMMANDS);
  return userData;
}

function acknowledgeNatInstance(cfn: CfnInstance): void {
  Validations.of(cfn).acknowledge(
    {
      id: 'AwsSolutions-EC28',
      reason:
        "A NAT instance's basic monitoring (5-minute metrics) is enough: its status checks, which its recovery " +
        'alarms read, are published every minute regardless, and it holds no state worth detailed metrics.',
    },
    {
      id: 'AwsSolutions-EC29',
      reason:
        'A NAT instance is replaceable by design: a redeploy replaces it with the latest image, and termination ' +
        'protection would block exactly that; it holds no data.',
    },
  );
}
