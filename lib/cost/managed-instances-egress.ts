import { DEFAULT_NAT_INSTANCE_TYPE } from '../constructs/nat-instances.js';
import { AWS_PRICES, HOURS_PER_MONTH } from './aws-prices.js';
import { money, readable, type CostLine } from './table-costs.js';
import { ofType, type Template } from './template.js';

/**
 * The Managed Instances' way out to the upstreams (lib/constructs/nat-instances.ts), read from
 * the template: NAT instances (one a zone) or NAT gateways. What each costs idle and per stream.
 * Data out to the internet (a stream's prompt upstream) is billed alike through either, and like
 * every other data transfer out it is left out of the model; data in from the internet is free.
 */
export type EgressShape =
  | {
      readonly mode: 'nat-instances';
      readonly instanceType: string;
      readonly instance: NatInstancePrice;
      /** One a zone. */
      readonly count: number;
    }
  | {
      readonly mode: 'nat-gateway';
      /** 0 when the instances run in the operator's subnets, whose egress is theirs. */
      readonly natGateways: number;
    };

export type NatInstancePrice = (typeof AWS_PRICES.natInstances)[keyof typeof AWS_PRICES.natInstances];

/** Amazon Linux 2023's image is 8 GiB, and the NAT instances keep the image's size. */
const NAT_ROOT_VOLUME_GIB = 8;
/** Each NAT instance has two status-check alarms (recover, reboot). */
const ALARMS_PER_NAT_INSTANCE = 2;
/** The idle line of the NAT instances' alarms, which the stack's alarm line counts once deployed. */
export const NAT_ALARMS_ITEM = 'NAT instance recovery alarms';

export function natInstancesEgress(instanceType: string, count: number): EgressShape {
  const instance = (AWS_PRICES.natInstances as Record<string, NatInstancePrice | undefined>)[instanceType];
  if (!instance) throw new Error(`no price for NAT instance type ${instanceType} in lib/cost/aws-prices.ts`);
  return { mode: 'nat-instances', instanceType, instance, count };
}

/** A NAT instance is the one EC2 instance that forwards others' packets: its source/dest check is off. */
export function egressOf(template: Template, deployed: boolean, zones: number): EgressShape {
  if (!deployed) return natInstancesEgress(DEFAULT_NAT_INSTANCE_TYPE, zones);
  const nats = ofType(template, 'AWS::EC2::Instance').filter(
    ([, instance]) => instance.Properties?.['SourceDestCheck'] === false,
  );
  const [first] = nats;
  if (first) return natInstancesEgress(String(first[1].Properties?.['InstanceType']), nats.length);
  return { mode: 'nat-gateway', natGateways: ofType(template, 'AWS::EC2::NatGateway').length };
}

/**
 * The egress the created VPC would have with the other choice, to price beside the deployed one;
 * none for the operator's subnets, where the stack chooses nothing.
 */
export function otherEgress(egress: EgressShape, zones: number): EgressShape | undefined {
  if (egress.mode === 'nat-instances') return { mode: 'nat-gateway', natGateways: 1 };
  return egress.natGateways === 0 ? undefined : natInstancesEgress(DEFAULT_NAT_INSTANCE_TYPE, zones);
}

export function egressLabel(egress: EgressShape): string {
  if (egress.mode === 'nat-instances') return 'NAT instances';
  return egress.natGateways === 0 ? 'your subnets' : 'NAT gateway';
}

/** The egress in a sentence: "with NAT instances", "with a NAT gateway". */
export function withEgress(egress: EgressShape): string {
  if (egress.mode === 'nat-instances') return 'with NAT instances';
  return egress.natGateways === 0 ? 'in your subnets' : 'with a NAT gateway';
}

/** What the streams' bytes to and from the upstream cost through the egress, per million streams. */
export function egressStreamLine(egress: EgressShape, egressBytesPerStream: number): CostLine {
  if (egress.mode === 'nat-instances') {
    return {
      item: 'NAT instance data',
      usd: 0,
      basis: 'no per-GB charge: data in from the internet is free, and within the zone to the instances too',
    };
  }
  const gb = (egressBytesPerStream * 1e6) / 1024 ** 3;
  return {
    item: 'NAT gateway data',
    usd: gb * AWS_PRICES.vpc.natPerGbProcessed,
    basis: `${readable(egressBytesPerStream / 1000)} KB a stream to and from the upstream`,
  };
}

/** What the egress costs a month whether streams pass or not. */
export function egressIdle(egress: EgressShape): CostLine[] {
  const p = AWS_PRICES;
  if (egress.mode === 'nat-gateway') {
    return [
      {
        item: 'NAT gateway hours',
        usd: egress.natGateways * p.vpc.natGatewayPerHour * HOURS_PER_MONTH,
        basis: `${egress.natGateways} × ${money(p.vpc.natGatewayPerHour)} an hour`,
      },
      {
        item: 'NAT gateway public IPv4',
        usd: egress.natGateways * p.vpc.publicIpv4PerHour * HOURS_PER_MONTH,
        basis: `${egress.natGateways} × ${money(p.vpc.publicIpv4PerHour)} an hour`,
      },
    ];
  }
  const { count, instanceType, instance } = egress;
  return [
    {
      item: 'NAT instance hours',
      usd: count * instance.perHour * HOURS_PER_MONTH,
      basis: `${count} × ${instanceType} (one a zone) at ${money(instance.perHour)} an hour`,
    },
    {
      item: 'NAT instance public IPv4',
      usd: count * p.vpc.publicIpv4PerHour * HOURS_PER_MONTH,
      basis: `${count} × ${money(p.vpc.publicIpv4PerHour)} an hour`,
    },
    {
      item: 'NAT instance root volumes',
      usd: count * NAT_ROOT_VOLUME_GIB * p.ebs.gp3PerGbMonth,
      basis: `${count} × ${NAT_ROOT_VOLUME_GIB} GiB gp3 at ${money(p.ebs.gp3PerGbMonth)} a GB-month`,
    },
    {
      item: NAT_ALARMS_ITEM,
      usd: count * ALARMS_PER_NAT_INSTANCE * p.cloudWatch.perStandardAlarmMonth,
      basis: `${count * ALARMS_PER_NAT_INSTANCE} status-check alarms (with the stack's alarms once deployed)`,
    },
  ];
}

/**
 * Streams of `bytesPerSecond` a NAT instance carries at once at its baseline bandwidth. The answer
 * passes it twice, in from the upstream and out to the instance, but EC2's bandwidth is per
 * direction, so each direction carries the stream once.
 */
export function streamsAtBaseline(instance: NatInstancePrice, bytesPerSecond: number): number {
  return Math.floor((instance.baselineGbps * 1e9) / 8 / bytesPerSecond);
}
