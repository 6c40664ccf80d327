import {
  DEFAULT_MANAGED_INSTANCES_MAX_VCPUS,
  DEFAULT_MANAGED_INSTANCES_TYPE,
} from '../constructs/streaming-capacity.js';
import { routes } from '../routes.js';
import { environmentsPerInstance, MANAGED_INSTANCES_SIZING } from '../stream-sizing.js';
import { AWS_PRICES, HOURS_PER_MONTH } from './aws-prices.js';
import {
  egressIdle,
  egressLabel,
  egressOf,
  egressStreamLine,
  otherEgress,
  streamsAtBaseline,
  withEgress,
  type EgressShape,
} from './managed-instances-egress.js';
import { grid, money, readable, table, total, type CostLine } from './table-costs.js';
import { numberProperty, ofType, type Resource, type Template } from './template.js';

/**
 * The streaming routes' two compute modes side by side (lib/constructs/streaming-capacity.ts):
 * what a million 20 s chat completion streams cost on on-demand Lambda and on Lambda Managed
 * Instances, what the Managed Instances mode costs while idle, and the monthly volume above
 * which it is the cheaper. Whichever mode the template deploys is read from it; the other is
 * priced as it would be deployed (the manifest's memory on Lambda, the default sizing and a
 * created VPC with NAT instances on Managed Instances), so both columns always print. Managed
 * Instances are priced with the other egress of a created VPC too (NAT gateway or instances).
 */

/** What a million 20 s streams on Managed Instances should cost at most at steady load (issue 20). */
export const MANAGED_INSTANCES_TARGET_PER_MILLION = 15;
/** A million 20 s streams on on-demand Lambda, right-sized (lib/stream-sizing.ts). */
export const ON_DEMAND_TARGET_PER_MILLION = 70;

export interface StreamAssumptions {
  /** How long a stream is open: Lambda bills it whole; on Managed Instances it holds a slot that long. */
  readonly streamSeconds: number;
  /**
   * Bytes a stream sends through the NAT: its request upstream and the upstream's streamed
   * answer, uncompressed. `npm run bench -- memory` measures the answer to the caller at about
   * 208 KB for 1,000 chunks in 20 s, and the upstream's is the same wire format; the prompt adds a
   * few KB. The answer back to the caller is counted as leaving by Lambda's invoke path, not the
   * VPC's NAT (AWS does not say which; through a NAT gateway, its data line would then double).
   */
  readonly egressBytesPerStream: number;
  /**
   * The share of its PerExecutionEnvironmentMaxConcurrency an environment holds on average at
   * steady load: Lambda adds environments before the running ones are full.
   */
  readonly steadyFill: number;
}

export const DEFAULT_STREAM_ASSUMPTIONS: StreamAssumptions = Object.freeze({
  streamSeconds: 20,
  egressBytesPerStream: 210_000,
  steadyFill: 0.8,
});

/** The Managed Instances mode as deployed (or as it would be): what its cost rests on. */
export interface ManagedInstancesShape {
  /** Whether the template deploys it, or it is priced with the defaults. */
  readonly deployed: boolean;
  readonly instanceType: string;
  readonly instance: { readonly vcpus: number; readonly memoryGiB: number; readonly perHour: number };
  readonly environment: { readonly memoryMb: number; readonly memoryGiBPerVcpu: number; readonly concurrency: number };
  readonly environmentsPerInstance: number;
  /** Environments kept warm with no traffic: every function on the instances keeps its minimum. */
  readonly minEnvironments: number;
  readonly functions: number;
  /** Availability Zones the instances spread over (one subnet each). */
  readonly zones: number;
  /** The capacity provider's ceiling. */
  readonly maxVcpus: number;
  readonly egress: EgressShape;
}

/** The representative function: chat completions carries the long streams. */
const CHAT_FUNCTION = /^EndpointsChatCompletionsFunction[0-9A-F]{8}$/;

interface CapacityConfig {
  readonly PerExecutionEnvironmentMaxConcurrency?: number;
  readonly ExecutionEnvironmentMemoryGiBPerVCpu?: number;
}

const capacityConfigOf = (fn: Resource): CapacityConfig | undefined =>
  (fn.Properties?.['CapacityProviderConfig'] as { LambdaManagedInstancesCapacityProviderConfig?: CapacityConfig })
    ?.LambdaManagedInstancesCapacityProviderConfig;

function chatFunction(template: Template): Resource {
  const found = Object.entries(template.Resources).find(
    ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && CHAT_FUNCTION.test(id),
  );
  if (!found) throw new Error('the template has no chat completions function (EndpointsChatCompletionsFunction…)');
  return found[1];
}

/** The Managed Instances mode of the template, or the default one (chat completions, a created VPC). */
export function managedInstancesOf(template: Template): ManagedInstancesShape {
  const onInstances = ofType(template, 'AWS::Lambda::Function').filter(([, fn]) => capacityConfigOf(fn));
  const [provider] = ofType(template, 'AWS::Lambda::CapacityProvider');
  const chat = chatFunction(template);
  const sizing = MANAGED_INSTANCES_SIZING;
  const config = capacityConfigOf(chat);
  const instanceType =
    (provider?.[1].Properties?.['InstanceRequirements'] as { AllowedInstanceTypes?: string[] } | undefined)
      ?.AllowedInstanceTypes?.[0] ?? DEFAULT_MANAGED_INSTANCES_TYPE;
  const instance = (AWS_PRICES.ec2 as Record<string, ManagedInstancesShape['instance'] | undefined>)[instanceType];
  if (!instance) throw new Error(`no price for instance type ${instanceType} in lib/cost/aws-prices.ts`);
  const memoryGiBPerVcpu = config?.ExecutionEnvironmentMemoryGiBPerVCpu ?? sizing.memoryGiBPerVcpu;
  const memoryMb = config ? (numberProperty(chat, 'MemorySize') ?? sizing.memoryMb) : sizing.memoryMb;
  const environment = {
    memoryMb,
    memoryGiBPerVcpu,
    concurrency:
      config?.PerExecutionEnvironmentMaxConcurrency ??
      sizing.perEnvironmentConcurrency * (memoryMb / 1024 / memoryGiBPerVcpu),
  };
  const minEnvironments = provider
    ? onInstances.reduce(
        (sum, [, fn]) =>
          sum +
          (numberProperty(fn, 'FunctionScalingConfig', 'MinExecutionEnvironments') ?? sizing.minExecutionEnvironments),
        0,
      )
    : sizing.minExecutionEnvironments;
  const subnets = (provider?.[1].Properties?.['VpcConfig'] as { SubnetIds?: unknown[] } | undefined)?.SubnetIds;
  // A created VPC has two zones; the operator's subnets are counted as one zone each.
  const zones = subnets?.length ?? 2;
  const maxVcpus =
    (provider?.[1].Properties?.['CapacityProviderScalingConfig'] as { MaxVCpuCount?: number } | undefined)
      ?.MaxVCpuCount ?? DEFAULT_MANAGED_INSTANCES_MAX_VCPUS;
  return {
    deployed: provider !== undefined,
    instanceType,
    instance,
    environment,
    environmentsPerInstance: environmentsPerInstance(instance, environment),
    minEnvironments,
    functions: provider ? onInstances.length : 1,
    zones,
    maxVcpus,
    egress: egressOf(template, provider !== undefined, zones),
  };
}

/** The idle lines that are the warm instances themselves (the rest is the egress's). */
const WARM_ITEMS = new Set(['EC2 instances kept warm', 'Managed Instances fee']);

/** Instances kept running with no traffic: the warm environments, spread over the zones. */
export function idleInstances(shape: ManagedInstancesShape): number {
  return Math.max(
    Math.ceil(shape.minEnvironments / shape.environmentsPerInstance),
    Math.min(shape.minEnvironments, shape.zones),
  );
}

/** What the Managed Instances mode costs a month with no traffic, beyond the stack's own idle cost. */
export function managedInstancesIdle(shape: ManagedInstancesShape): CostLine[] {
  const p = AWS_PRICES;
  const instances = idleInstances(shape);
  const ec2 = instances * shape.instance.perHour * HOURS_PER_MONTH;
  return [
    {
      item: 'EC2 instances kept warm',
      usd: ec2,
      basis: `${instances} × ${shape.instanceType} for ${shape.minEnvironments} environments (${shape.functions} function(s) × their minimum) over ${shape.zones} zones`,
    },
    {
      item: 'Managed Instances fee',
      usd: ec2 * p.lambda.managedInstances.managementFeeShare,
      basis: `${p.lambda.managedInstances.managementFeeShare * 100}% of the instances' on-demand price`,
    },
    ...egressIdle(shape.egress),
  ];
}

/** The streams' own compute per million on on-demand Lambda: requests and GB-seconds. */
export function onDemandStreamCompute(template: Template, a: StreamAssumptions): CostLine[] {
  const chat = chatFunction(template);
  // On Managed Instances the template's memory is the environment's: price Lambda at the manifest's.
  const memoryMb = capacityConfigOf(chat)
    ? routes.find((route) => route.id === 'chat-completions')!.memoryMb
    : (numberProperty(chat, 'MemorySize') ?? 128);
  const p = AWS_PRICES.lambda;
  return [
    { item: 'Lambda requests', usd: p.perMillionRequests, basis: 'per million invocations' },
    {
      item: 'Lambda compute',
      usd: (memoryMb / 1024) * a.streamSeconds * 1e6 * p.perGbSecond,
      basis: `${memoryMb} MB × ${a.streamSeconds} s, arm64`,
    },
  ];
}

/** The streams' own compute per million on Managed Instances at steady load. */
export function managedInstancesStreamCompute(shape: ManagedInstancesShape, a: StreamAssumptions): CostLine[] {
  const p = AWS_PRICES;
  const environmentHours = (1e6 * a.streamSeconds) / (shape.environment.concurrency * a.steadyFill) / 3600;
  const ec2 = (environmentHours / shape.environmentsPerInstance) * shape.instance.perHour;
  return [
    { item: 'Lambda requests', usd: p.lambda.managedInstances.perMillionRequests, basis: 'per million invocations' },
    {
      item: 'EC2 instance time',
      usd: ec2,
      basis: `${shape.environment.concurrency} streams an environment at ${a.steadyFill * 100}% fill, ${shape.environmentsPerInstance} environments a ${shape.instanceType}`,
    },
    {
      item: 'Managed Instances fee',
      usd: ec2 * p.lambda.managedInstances.managementFeeShare,
      basis: `${p.lambda.managedInstances.managementFeeShare * 100}% of the instance time`,
    },
    egressStreamLine(shape.egress, a.egressBytesPerStream),
  ];
}

export interface StreamComparison {
  readonly shape: ManagedInstancesShape;
  /** Per million streams, the lines both modes pay alike (API Gateway, DynamoDB, logs, WAF…). */
  readonly shared: readonly CostLine[];
  readonly onDemand: readonly CostLine[];
  readonly managedInstances: readonly CostLine[];
  readonly idle: readonly CostLine[];
  /** Streams a month above which Managed Instances cost less; Infinity when they never do. */
  readonly crossoverPerMonth: number;
  /** The same for a created VPC's other egress; none in the operator's subnets. */
  readonly otherEgress?: {
    readonly shape: ManagedInstancesShape;
    readonly managedInstances: readonly CostLine[];
    readonly idle: readonly CostLine[];
    readonly crossoverPerMonth: number;
  };
}

/**
 * Both modes for the same streams. `shared` is the per-request table's lines other than Lambda's
 * own, priced at the stream's length (the caller passes them, computed from the same template).
 */
export function compareStreamCompute(
  template: Template,
  shared: readonly CostLine[],
  a: StreamAssumptions = DEFAULT_STREAM_ASSUMPTIONS,
): StreamComparison {
  const shape = managedInstancesOf(template);
  const onDemand = onDemandStreamCompute(template, a);
  const managedInstances = managedInstancesStreamCompute(shape, a);
  const idle = managedInstancesIdle(shape);
  const other = otherEgress(shape.egress, shape.zones);
  const otherShape = other && { ...shape, egress: other };
  const otherLines = otherShape && managedInstancesStreamCompute(otherShape, a);
  const otherIdle = otherShape && managedInstancesIdle(otherShape);
  return {
    shape,
    shared,
    onDemand,
    managedInstances,
    idle,
    crossoverPerMonth: crossover(onDemand, managedInstances, idle),
    ...(otherShape &&
      otherLines &&
      otherIdle && {
        otherEgress: {
          shape: otherShape,
          managedInstances: otherLines,
          idle: otherIdle,
          crossoverPerMonth: crossover(onDemand, otherLines, otherIdle),
        },
      }),
  };
}

/**
 * The monthly volume where the two bills meet. On Managed Instances the warm instances serve the
 * first streams at no extra instance cost: until the load needs more than them, only the requests
 * and the egress's data grow with volume (its idle cost is fixed); past that, the instance time
 * per stream too.
 */
function crossover(onDemand: readonly CostLine[], managed: readonly CostLine[], idle: readonly CostLine[]): number {
  const instanceItems = new Set(['EC2 instance time', 'Managed Instances fee']);
  const perMillionInstances = total(managed.filter((line) => instanceItems.has(line.item)));
  const perMillionOther = total(managed.filter((line) => !instanceItems.has(line.item)));
  const warm = total(idle.filter((line) => WARM_ITEMS.has(line.item)));
  const fixed = total(idle) - warm;
  const saving = total(onDemand) - perMillionOther;
  if (saving <= 0) return Infinity;
  // Millions of streams a month the warm instances carry.
  const carried = perMillionInstances > 0 ? warm / perMillionInstances : Infinity;
  const withinWarm = (fixed + warm) / saving;
  if (withinWarm <= carried) return withinWarm * 1e6;
  const beyond = saving - perMillionInstances;
  return beyond > 0 ? (fixed / beyond) * 1e6 : Infinity;
}

/**
 * Both modes' monthly bills for the streams alone (what the rest of the stack costs is the same
 * in both): on-demand grows with every stream; Managed Instances start from the idle cost, and
 * the instance time grows only once the load needs more than the warm instances.
 */
export function monthlyStreamBills(
  comparison: StreamComparison,
  streamsPerMonth: number,
): { onDemand: number; managedInstances: number } {
  const millions = streamsPerMonth / 1e6;
  const instanceItems = new Set(['EC2 instance time', 'Managed Instances fee']);
  const perMillionInstances = total(comparison.managedInstances.filter((line) => instanceItems.has(line.item)));
  const perMillionOther = total(comparison.managedInstances.filter((line) => !instanceItems.has(line.item)));
  const warm = total(comparison.idle.filter((line) => WARM_ITEMS.has(line.item)));
  return {
    onDemand: millions * total([...comparison.shared, ...comparison.onDemand]),
    managedInstances:
      total(comparison.idle) -
      warm +
      Math.max(warm, millions * perMillionInstances) +
      millions * (total(comparison.shared) + perMillionOther),
  };
}

/** The side-by-side table, the mode's idle cost, the crossover and the target, as `npm run cost` prints them. */
export function streamComputeReport(comparison: StreamComparison, a: StreamAssumptions): string[] {
  const { shape, shared, onDemand, managedInstances, idle, otherEgress: other } = comparison;
  const columns = [
    { title: 'on-demand Lambda', lines: onDemand },
    { title: `Managed Instances, ${egressLabel(shape.egress)}`, lines: managedInstances },
    ...(other
      ? [{ title: `Managed Instances, ${egressLabel(other.shape.egress)}`, lines: other.managedInstances }]
      : []),
  ];
  const items = [...new Set([...shared, ...columns.flatMap((column) => column.lines)].map((line) => line.item))];
  const cell = (lines: readonly CostLine[], item: string) => {
    const found = lines.find((line) => line.item === item);
    return found ? money(found.usd) : '';
  };
  const deployed = shape.deployed
    ? `Managed Instances, ${egressLabel(shape.egress)}`
    : `on-demand Lambda; Managed Instances as the mode deploys by default, ${egressLabel(shape.egress)}`;
  const crossoverAt = (perMonth: number) =>
    Number.isFinite(perMonth)
      ? `above ${readable(Math.round(perMonth / 1000) * 1000)} streams of ${a.streamSeconds} s a month (${readable(Math.round((perMonth / (HOURS_PER_MONTH * 3600)) * 100) / 100)} a second on average)`
      : 'at no volume: on-demand Lambda costs less at every volume with these figures';
  return [
    grid(
      `Per million ${a.streamSeconds} s chat completion streams, both compute modes (this template: ${deployed})`,
      ['item', ...columns.map((column) => column.title)],
      [
        ...items.map((item) => [item, ...columns.map((column) => cell([...shared, ...column.lines], item))]),
        ['Total', ...columns.map((column) => money(total([...shared, ...column.lines])))],
      ],
    ),
    '',
    table(
      `Managed Instances idle cost per month, ${egressLabel(shape.egress)} (the mode's own: ${shape.deployed ? 'in the idle table above' : 'on top of the idle table, were it deployed'})`,
      idle,
    ),
    ...(other
      ? [`  ${capitalized(withEgress(other.shape.egress))} instead: ${money(total(other.idle))} a month.`]
      : []),
    '',
    `Crossover: Managed Instances (${egressLabel(shape.egress)}) cost less ${crossoverAt(comparison.crossoverPerMonth)}.` +
      (other ? ` ${capitalized(withEgress(other.shape.egress))}: ${crossoverAt(other.crossoverPerMonth)}.` : ''),
    ...targetVerdict(comparison),
    ...egressCapacity(shape, a),
  ];
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Whether on-demand Lambda, and each egress of Managed Instances, keep a million streams within their targets. */
function targetVerdict(comparison: StreamComparison): string[] {
  const target = MANAGED_INSTANCES_TARGET_PER_MILLION;
  const verdict = (shape: ManagedInstancesShape, lines: readonly CostLine[]) => {
    const usd = total([...comparison.shared, ...lines]);
    return `${egressLabel(shape.egress)} ${money(usd)}, ${usd <= target ? 'within it' : 'above it'}`;
  };
  const other = comparison.otherEgress;
  const verdicts = [
    verdict(comparison.shape, comparison.managedInstances),
    ...(other ? [verdict(other.shape, other.managedInstances)] : []),
  ];
  const onDemand = total([...comparison.shared, ...comparison.onDemand]);
  return [
    `Target ≤ ${money(ON_DEMAND_TARGET_PER_MILLION)} a million on on-demand Lambda: ${money(onDemand)}, ` +
      `${onDemand <= ON_DEMAND_TARGET_PER_MILLION ? 'within it' : 'above it'}.`,
    `Target ≤ ${money(target)} a million on Managed Instances at steady load: ${verdicts.join('; ')}.`,
  ];
}

/**
 * What a NAT instance's baseline bandwidth carries, against the most streams the capacity
 * provider's ceiling can put in one zone.
 */
function egressCapacity(shape: ManagedInstancesShape, a: StreamAssumptions): string[] {
  const egress = shape.egress;
  if (egress.mode !== 'nat-instances') return [];
  const bytesPerSecond = a.egressBytesPerStream / a.streamSeconds;
  const carried = streamsAtBaseline(egress.instance, bytesPerSecond);
  const instances = Math.floor(shape.maxVcpus / shape.instance.vcpus);
  const ceiling = Math.ceil((instances * shape.environmentsPerInstance * shape.environment.concurrency) / shape.zones);
  return [
    `Egress: a ${egress.instanceType} NAT instance's ${egress.instance.baselineGbps} Gbps baseline carries about ` +
      `${readable(carried)} streams of ${readable(Math.round(bytesPerSecond / 100) / 10)} KB/s at once; the capacity ` +
      `provider's ceiling (${shape.maxVcpus} vCPUs) puts about ${readable(ceiling)} in each zone` +
      (ceiling > carried ? ': pick a larger managedInstancesNatInstanceType.' : '.'),
  ];
}
