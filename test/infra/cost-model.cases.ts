import {
  FAMILIES,
  MEDIA_PROVIDER_IDS,
  MEDIA_PROVIDERS,
  SEARCH_PROVIDER_IDS,
} from '../../lambdas/catalog/model-catalog.js';
import { UNIT_PRICES } from '../../lambdas/catalog/unit-prices.js';
import { videoJobDriver } from '../../lambdas/media/video-job-driver.js';
import { JOB_DRIVERS } from '../../lambdas/jobs/job-driver-registry.js';
import { METRIC } from '../../lambdas/observability/metric-names.js';
import { JOB_POLLER_STATES, jobPollerDefinition } from '../../lib/constructs/job-poller-definition.js';
import { AWS_PRICES } from '../../lib/cost/aws-prices.js';
import {
  costReport,
  DEFAULT_ASSUMPTIONS,
  idleMonthlyCost,
  perMillionRequests,
  streamComparison,
  total,
  type Template,
} from '../../lib/cost/cost-model.js';
import {
  DEFAULT_STREAM_ASSUMPTIONS,
  MANAGED_INSTANCES_TARGET_PER_MILLION,
  managedInstancesOf,
  monthlyStreamBills,
} from '../../lib/cost/streaming-compute-costs.js';
import {
  customMetricSeries,
  customMetricsPerMonth,
  customMetricsUsd,
  metricReach,
} from '../../lib/cost/custom-metrics.js';
import { DEFAULT_EXPORTS, financeExportsPerMonth, transitionsPerExport } from '../../lib/cost/finance-exports.js';
import {
  DEFAULT_MEDIA_JOBS,
  JOB_POLLER_MACHINE,
  jobPollerOf,
  perThousandMediaJobs,
} from '../../lib/cost/media-job-costs.js';
import { pollingLoop } from '../../lib/cost/state-machine.js';
import { build } from './support.js';

/** The operator's cost model (`npm run cost`) over the stack as synthesized. */
const template = build().template.toJSON() as Template;
const count = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type).length;
const line = (lines: readonly ReturnType<typeof idleMonthlyCost>[number][], item: string) =>
  lines.find((l) => l.item === item);

test('idle cost counts what the template deploys: keys and secrets at their monthly prices', () => {
  const idle = idleMonthlyCost(template);
  expect(count('AWS::KMS::Key')).toBeGreaterThan(0);
  expect(line(idle, 'KMS customer managed keys')?.usd).toBe(count('AWS::KMS::Key') * AWS_PRICES.kms.perKeyMonth);
  expect(line(idle, 'Secrets Manager secrets')?.usd).toBeCloseTo(
    count('AWS::SecretsManager::Secret') * AWS_PRICES.secretsManager.perSecretMonth,
    9,
  );
  expect(total(idle)).toBeCloseTo(
    idle.reduce((sum, l) => sum + l.usd, 0),
    9,
  );
});

test('alarms are billed per metric they read: a math alarm over two metrics costs two alarm-months', () => {
  const alarms = Object.values(template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
  const metricsRead = alarms.reduce((sum, alarm) => {
    const queries = (alarm.Properties!['Metrics'] as { MetricStat?: unknown }[] | undefined) ?? [];
    return sum + (queries.length === 0 ? 1 : queries.filter((q) => q.MetricStat).length);
  }, 0);
  // The template has math alarms (error rates, table throttles), so the two counts differ.
  expect(metricsRead).toBeGreaterThan(alarms.length);
  expect(line(idleMonthlyCost(template), 'CloudWatch alarms')?.usd).toBeCloseTo(
    metricsRead * AWS_PRICES.cloudWatch.perStandardAlarmMonth,
    9,
  );
});

test('per million requests: Lambda compute follows the chat function memory in the template and the duration', () => {
  const chat = Object.entries(template.Resources).find(([id]) => id.startsWith('EndpointsChatCompletionsFunction'))!;
  const memoryMb = chat[1].Properties!['MemorySize'] as number;
  const at = (durationMs: number) =>
    line(
      perMillionRequests(template, { durationMs, writeUnits: 4, readUnits: 0, logBytes: 0, tracedShare: 0 }),
      'Lambda compute',
    )!;
  expect(at(1_000).usd).toBeCloseTo((memoryMb / 1024) * 1e6 * AWS_PRICES.lambda.perGbSecond, 6);
  expect(at(3_000).usd).toBeCloseTo(3 * at(1_000).usd, 6);
  const lines = perMillionRequests(template);
  expect(line(lines, 'API Gateway REST requests')?.usd).toBe(AWS_PRICES.apiGateway.perMillionRequests);
  // Every function traces actively, so X-Ray is on the bill.
  expect(line(lines, 'X-Ray traces')).toBeDefined();
});

test('the report prints the idle and per-request tables with their totals (and the metrics and finance ones)', () => {
  const report = costReport(template);
  expect(report).toContain('Idle cost per month (no traffic)');
  expect(report).toContain('Infrastructure cost per million gateway requests');
  // Idle, per million requests, Managed Instances idle, custom metrics, finance exports; media jobs
  // have a total per kind instead, and the two compute modes a total per column.
  expect(report.match(/^ {2}Total +\$\d+\.\d+$/gm)).toHaveLength(5);
});

test('a template without the chat completions function is refused with a clear message', () => {
  expect(() => perMillionRequests({ Resources: {} })).toThrow(/no chat completions function/);
});

// The three tables beyond idle and per-request cost: custom metrics, media job polling, finance exports.

/** A copy of the synthesized template to change one property of. */
const copy = (): any => structuredClone(template);
const idOf = (pattern: RegExp) => Object.keys(template.Resources).find((id) => pattern.test(id))!;
const FIRST_TIER = AWS_PRICES.cloudWatch.customMetricTiers[0]!.perMetricMonth;

describe('CloudWatch custom metrics', () => {
  const series = (name: string) => customMetricSeries(metricReach(template)).find((s) => s.name === name)?.series;
  /** Routes, counted here from the API: every method but the CORS preflights proxies to a route's function. */
  const routes = Object.values(template.Resources).filter(
    (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties!['HttpMethod'] !== 'OPTIONS',
  ).length;
  const pairs = new Set(FAMILIES.flatMap((f) => f.routes.map((r) => `${r.provider}/${r.model}`))).size;
  const providers = new Set([
    ...FAMILIES.flatMap((f) => f.routes.map((r) => r.provider)),
    ...SEARCH_PROVIDER_IDS,
    ...MEDIA_PROVIDER_IDS.filter((id) => MEDIA_PROVIDERS[id].meteredAttempts),
  ]).size;

  test('every route publishes its call metrics, and duration once more without a route', () => {
    expect(routes).toBeGreaterThan(20);
    expect(series(METRIC.requests)).toBe(routes);
    expect(series(METRIC.serverErrors)).toBe(routes);
    expect(series(METRIC.requestDuration)).toBe(routes + 1);
  });

  test('model dimensions are bounded to the catalog: one series per provider and model pair, two token types', () => {
    expect(series(METRIC.tokenUsage)).toBe(2 * pairs);
    expect(series(METRIC.operationDuration)).toBe(pairs);
    expect(series(METRIC.upstreamRequests)).toBe(providers);
    // Web search is metered under `other` (its model ids are not priced), so it adds one pair for cost only;
    // speech, music, video and fashion add one per unit-priced model.
    expect(series(METRIC.costMicroUsd)).toBe(pairs + SEARCH_PROVIDER_IDS.length + Object.keys(UNIT_PRICES).length);
  });

  test('jobs: an ended count per kind and outcome, a duration per kind', () => {
    expect(series(METRIC.jobsEnded)).toBe(2 * JOB_DRIVERS.size);
    expect(series(METRIC.jobDuration)).toBe(JOB_DRIVERS.size);
  });

  test('the table prices every series at the first tier, and a new route adds its four series', () => {
    const lines = customMetricsPerMonth(template);
    const all = customMetricSeries(metricReach(template)).reduce((sum, s) => sum + s.series, 0);
    expect(total(lines)).toBeCloseTo(all * FIRST_TIER, 9);
    const more = copy();
    const [, method] = Object.entries(template.Resources).find(
      ([, r]) => r.Type === 'AWS::ApiGateway::Method' && r.Properties!['HttpMethod'] === 'GET',
    )!;
    more.Resources.ExtraFunctionABCDEF12 = { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 256 } };
    more.Resources.ExtraMethodABCDEF12 = structuredClone(method);
    more.Resources.ExtraMethodABCDEF12.Properties.Integration.Uri = {
      'Fn::Join': ['', ['arn:', { 'Fn::GetAtt': ['ExtraFunctionABCDEF12', 'Arn'] }, '/invocations']],
    };
    expect(total(customMetricsPerMonth(more)) - total(lines)).toBeCloseTo(4 * FIRST_TIER, 9);
  });

  test('custom metrics are not idle cost', () => {
    const metricNames = new Set(Object.values(METRIC) as string[]);
    expect(idleMonthlyCost(template).some((l) => metricNames.has(l.item) || /custom metric/i.test(l.item))).toBe(false);
  });

  test('volume tiers: the 10,001st metric costs the second tier', () => {
    expect(customMetricsUsd(10_000)).toBeCloseTo(10_000 * FIRST_TIER, 9);
    expect(customMetricsUsd(10_001) - customMetricsUsd(10_000)).toBeCloseTo(
      AWS_PRICES.cloudWatch.customMetricTiers[1]!.perMetricMonth,
      9,
    );
  });
});

describe('media job polling', () => {
  /**
   * The loop as the definition's data states it, walked here on its own: from the start, Next,
   * or a Choice's Default (its "not ended yet"), until the walk is back at the start.
   */
  const data = jobPollerDefinition(
    { poll: 'poll', markFailed: 'markFailed', notify: 'notify' },
    { timeoutSeconds: 60 },
  ) as any;
  const walked: string[] = [];
  for (let name = data.StartAt; !walked.includes(name);) {
    walked.push(name);
    name = data.States[name].Next ?? data.States[name].Default;
  }
  const tasksPerPoll = walked.filter((name) => data.States[name].Type === 'Task').length;
  const pollFunction = idOf(/^JobPollerPollFunction[0-9A-F]{8}$/);
  const video = (t: Template) => perThousandMediaJobs(t).find((job) => job.kind.kind === 'video')!;
  const item = (t: Template, name: string) => video(t).lines.find((l) => l.item === name)!.usd;

  test('the loop read from the template is the definition’s: its states, one task, back to Wait', () => {
    const poller = jobPollerOf(template);
    expect(poller.run.loop).toEqual(walked);
    expect(walked[0]).toBe(JOB_POLLER_STATES.wait);
    expect(poller.pollFunctionsMb).toHaveLength(tasksPerPoll);
  });

  test('transitions per job: polls times the loop, then Notify and Outcome? on the way out to Done', () => {
    const kind = DEFAULT_MEDIA_JOBS.kinds.find((k) => k.kind === 'video')!;
    const polls = Math.ceil(kind.typicalSeconds / kind.pollIntervalSeconds);
    const exit = [JOB_POLLER_STATES.notify, JOB_POLLER_STATES.outcome, JOB_POLLER_STATES.done];
    // The last poll leaves the loop after Ended? (one state short of Count) and walks the exit.
    const transitions = polls * walked.length - 1 + exit.length;
    expect(video(template).polls).toBe(polls);
    expect(video(template).transitions).toBe(transitions);
    expect(item(template, 'Step Functions')).toBeCloseTo(
      transitions * AWS_PRICES.stepFunctions.perThousandStandardTransitions,
      9,
    );
    expect(item(template, 'Lambda requests')).toBeCloseTo(
      ((1000 * polls * tasksPerPoll) / 1e6) * AWS_PRICES.lambda.perMillionRequests,
      9,
    );
  });

  test('Lambda compute follows the poll function memory in the template', () => {
    const memoryMb = template.Resources[pollFunction]!.Properties!['MemorySize'] as number;
    const larger = copy();
    larger.Resources[pollFunction].Properties.MemorySize = memoryMb * 2;
    expect(item(larger, 'Lambda compute')).toBeCloseTo(2 * item(template, 'Lambda compute'), 9);
    expect(item(larger, 'Step Functions')).toBe(item(template, 'Step Functions'));
  });

  test('the machine’s history is logged only at level ALL', () => {
    const quiet = copy();
    quiet.Resources[idOf(JOB_POLLER_MACHINE)].Properties.LoggingConfiguration.Level = 'ERROR';
    expect(item(quiet, 'CloudWatch Logs')).toBeLessThan(item(template, 'CloudWatch Logs'));
  });

  test('the video default matches the video driver', () => {
    expect(DEFAULT_MEDIA_JOBS.kinds.find((k) => k.kind === 'video')!.pollIntervalSeconds).toBe(
      videoJobDriver.pollIntervalSeconds,
    );
  });

  test('a machine without a loop is not a polling machine', () => {
    const straight = { StartAt: 'A', States: { A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Succeed' } } };
    expect(() => pollingLoop(straight)).toThrow(/no loop/);
  });
});

describe('finance exports', () => {
  const workgroup = idOf(/^UsageExportsCatalogWorkGroup[0-9A-F]{8}$/);
  const cutoff = template.Resources[workgroup]!.Properties!['WorkGroupConfiguration'] as {
    BytesScannedCutoffPerQuery: number;
  };
  const athena = (t: Template, requestsPerMonth = DEFAULT_EXPORTS.requestsPerMonth) =>
    financeExportsPerMonth(t, { ...DEFAULT_EXPORTS, requestsPerMonth }).find((l) => l.item === 'Athena queries')!.usd;
  const perQueryAt = (bytes: number) => (bytes / 1024 ** 4) * AWS_PRICES.athena.perTbScanned;

  test('a query costs at most the workgroup’s bytes-scanned limit in the template', () => {
    expect(cutoff.BytesScannedCutoffPerQuery).toBeGreaterThan(0);
    expect(athena(template, 1e10)).toBeCloseTo(
      DEFAULT_EXPORTS.athenaQueriesPerMonth * perQueryAt(cutoff.BytesScannedCutoffPerQuery),
      9,
    );
    const tighter = copy();
    tighter.Resources[workgroup].Properties.WorkGroupConfiguration.BytesScannedCutoffPerQuery = 100 * 1024 ** 2;
    expect(athena(tighter)).toBeCloseTo(DEFAULT_EXPORTS.athenaQueriesPerMonth * perQueryAt(100 * 1024 ** 2), 9);
    expect(athena(tighter)).toBeLessThan(athena(template));
  });

  test('below the limit, a query scans the months of gzipped exports it reads', () => {
    const a = DEFAULT_EXPORTS;
    const scanned = a.monthsScanned * a.requestsPerMonth * a.ledgerEntriesPerRequest * a.storedBytesPerEntry;
    expect(scanned).toBeLessThan(cutoff.BytesScannedCutoffPerQuery);
    expect(athena(template)).toBeCloseTo(a.athenaQueriesPerMonth * perQueryAt(scanned), 9);
  });

  test('each further check of a running export enters the export machine’s loop once more', () => {
    // WaitForExport → DescribeExport → ExportDone? (lib/constructs/export-schedule.ts), every 5 minutes.
    expect(transitionsPerExport(template, 20) - transitionsPerExport(template, 15)).toBe(3);
  });

  test('a small month is billed at the export minimum', () => {
    const lines = financeExportsPerMonth(template, { ...DEFAULT_EXPORTS, requestsPerMonth: 1 });
    expect(lines.find((l) => l.item === 'DynamoDB incremental exports')!.usd).toBeCloseTo(
      ((DEFAULT_EXPORTS.exportsPerMonth * AWS_PRICES.dynamodb.minimumBytesPerIncrementalExport) / 1024 ** 3) *
        AWS_PRICES.dynamodb.perGbIncrementalExport,
      9,
    );
  });
});

test('the report prints the three new tables and says why custom metrics are not idle cost', () => {
  const report = costReport(template);
  expect(report).toContain('CloudWatch custom metrics per month at full activity');
  expect(report).toContain('Media job polling per thousand jobs');
  expect(report).toContain('Finance exports per month at 1,000,000 requests a month');
  for (const kind of DEFAULT_MEDIA_JOBS.kinds)
    expect(report).toMatch(new RegExp(`^ {2}${kind.kind} +\\d+ +\\d+ +\\$`, 'm'));
  expect(report).toMatch(/An idle month\s+publishes none/);
});

describe('streams in both compute modes', () => {
  const STREAM = DEFAULT_STREAM_ASSUMPTIONS;
  const managedWith = (egress?: { mode: 'nat-gateway' }) =>
    build({
      streamingCompute: {
        mode: 'managed-instances',
        routes: ['chat-completions'],
        network: 'create',
        ...(egress && { egress }),
        instanceType: 'c7g.xlarge',
        maxVcpus: 48,
      },
    }).template.toJSON() as Template;
  /** The mode as deployed by default: NAT instances. */
  const managed = managedWith();
  const managedNatGateway = managedWith({ mode: 'nat-gateway' });
  const natInstancesIn = (t: Template) =>
    resourcesOf(t, 'AWS::EC2::Instance').filter((r) => r.Properties!['SourceDestCheck'] === false);
  const resourcesOf = (t: Template, type: string) => Object.values(t.Resources).filter((r) => r.Type === type);
  const chatOf = (t: Template) =>
    Object.entries(t.Resources).find(([id]) => /^EndpointsChatCompletionsFunction[0-9A-F]{8}$/.test(id))![1];

  test('on-demand: a million 20 s streams at the template’s chat memory come to at most $70', () => {
    const comparison = streamComparison(template);
    const memoryMb = chatOf(template).Properties!['MemorySize'] as number;
    expect(line(comparison.onDemand, 'Lambda compute')?.usd).toBeCloseTo(
      (memoryMb / 1024) * STREAM.streamSeconds * 1e6 * AWS_PRICES.lambda.perGbSecond,
      6,
    );
    // The shared lines are the per-request table's own at the stream's length, Lambda's left out.
    const perRequest = perMillionRequests(template, {
      ...DEFAULT_ASSUMPTIONS,
      durationMs: STREAM.streamSeconds * 1000,
    });
    expect(total([...comparison.shared, ...comparison.onDemand])).toBeCloseTo(total(perRequest), 9);
    expect(total(perRequest)).toBeLessThanOrEqual(70);
  });

  test('Managed Instances: the shape is read from the template (type, environment, warm minimum, zones, NAT)', () => {
    const shape = managedInstancesOf(managed);
    const [provider] = resourcesOf(managed, 'AWS::Lambda::CapacityProvider');
    const config = (chatOf(managed).Properties!['CapacityProviderConfig'] as any)
      .LambdaManagedInstancesCapacityProviderConfig;
    const type = (provider!.Properties!['InstanceRequirements'] as any).AllowedInstanceTypes[0] as string;
    expect(shape).toMatchObject({
      deployed: true,
      instanceType: type,
      instance: (AWS_PRICES.ec2 as any)[type],
      environment: {
        memoryMb: chatOf(managed).Properties!['MemorySize'],
        memoryGiBPerVcpu: config.ExecutionEnvironmentMemoryGiBPerVCpu,
        concurrency: config.PerExecutionEnvironmentMaxConcurrency,
      },
      minEnvironments: (chatOf(managed).Properties!['FunctionScalingConfig'] as any).MinExecutionEnvironments,
      zones: (provider!.Properties!['VpcConfig'] as any).SubnetIds.length,
      egress: {
        mode: 'nat-instances',
        instanceType: natInstancesIn(managed)[0]!.Properties!['InstanceType'],
        count: natInstancesIn(managed).length,
      },
    });
    expect(managedInstancesOf(managedNatGateway).egress).toEqual({
      mode: 'nat-gateway',
      natGateways: resourcesOf(managedNatGateway, 'AWS::EC2::NatGateway').length,
    });
    // The default template prices the mode it does not deploy with the documented defaults.
    expect(managedInstancesOf(template)).toMatchObject({
      deployed: false,
      instanceType: type,
      egress: { mode: 'nat-instances', instanceType: 't4g.small', count: 2 },
    });
  });

  test('Managed Instances idle: the warm instances, their fee and the NAT gateway join the idle table', () => {
    const shape = managedInstancesOf(managed);
    const instances = Math.max(
      Math.ceil(shape.minEnvironments / shape.environmentsPerInstance),
      Math.min(shape.minEnvironments, shape.zones),
    );
    const idle = idleMonthlyCost(managed);
    const ec2 = instances * shape.instance.perHour * 730;
    expect(line(idle, 'EC2 instances kept warm')?.usd).toBeCloseTo(ec2, 6);
    expect(line(idle, 'Managed Instances fee')?.usd).toBeCloseTo(0.15 * ec2, 6);
    // Each NAT instance's hours and public address; its alarms are in the stack's alarm line.
    const nats = natInstancesIn(managed);
    const natPrice = (AWS_PRICES.natInstances as any)[nats[0]!.Properties!['InstanceType'] as string];
    expect(line(idle, 'NAT instance hours')?.usd).toBeCloseTo(nats.length * natPrice.perHour * 730, 6);
    expect(line(idle, 'NAT instance public IPv4')?.usd).toBeCloseTo(
      nats.length * AWS_PRICES.vpc.publicIpv4PerHour * 730,
      6,
    );
    expect(line(idle, 'NAT instance recovery alarms')).toBeUndefined();
    expect(line(idle, 'NAT gateway hours')).toBeUndefined();
    const gatewayIdle = idleMonthlyCost(managedNatGateway);
    expect(line(gatewayIdle, 'NAT gateway hours')?.usd).toBeCloseTo(
      resourcesOf(managedNatGateway, 'AWS::EC2::NatGateway').length * AWS_PRICES.vpc.natGatewayPerHour * 730,
      6,
    );
    expect(line(gatewayIdle, 'NAT instance hours')).toBeUndefined();
    // On-demand has none of it.
    expect(line(idleMonthlyCost(template), 'EC2 instances kept warm')).toBeUndefined();
    // The per-request table of the Managed Instances template bills no Lambda duration.
    expect(line(perMillionRequests(managed), 'Lambda compute')).toBeUndefined();
    expect(line(perMillionRequests(managed), 'EC2 instance time')).toBeDefined();
  });

  test('Managed Instances at steady load: instance time for the streams’ slots, the fee, and the NAT gateway’s data', () => {
    const natGatewayData = ((STREAM.egressBytesPerStream * 1e6) / 1024 ** 3) * AWS_PRICES.vpc.natPerGbProcessed;
    for (const t of [managed, managedNatGateway]) {
      const comparison = streamComparison(t);
      const { shape } = comparison;
      const environmentHours =
        (1e6 * STREAM.streamSeconds) / (shape.environment.concurrency * STREAM.steadyFill) / 3600;
      const ec2 = (environmentHours / shape.environmentsPerInstance) * shape.instance.perHour;
      expect(line(comparison.managedInstances, 'EC2 instance time')?.usd).toBeCloseTo(ec2, 6);
      // Far below on-demand per stream: one environment holds many streams.
      expect(total(comparison.managedInstances)).toBeLessThan(total(comparison.onDemand) / 3);
    }
    // A NAT gateway charges for each GB; a NAT instance for none.
    expect(line(streamComparison(managedNatGateway).managedInstances, 'NAT gateway data')?.usd).toBeCloseTo(
      natGatewayData,
      6,
    );
    expect(line(streamComparison(managed).managedInstances, 'NAT instance data')?.usd).toBe(0);
    expect(line(streamComparison(managed).managedInstances, 'NAT gateway data')).toBeUndefined();
    // Each template prices the other egress beside its own, line for line.
    expect(streamComparison(managed).otherEgress!.managedInstances).toEqual(
      streamComparison(managedNatGateway).managedInstances,
    );
    expect(streamComparison(managedNatGateway).otherEgress!.managedInstances).toEqual(
      streamComparison(managed).managedInstances,
    );
  });

  test('a million 20 s streams on Managed Instances: at most $15 with the default NAT instances, above with a NAT gateway', () => {
    const perMillion = (t: Template) => {
      const comparison = streamComparison(t);
      return total([...comparison.shared, ...comparison.managedInstances]);
    };
    expect(MANAGED_INSTANCES_TARGET_PER_MILLION).toBe(15);
    // Deployed, and as the on-demand template prices the mode it would deploy.
    expect(perMillion(managed)).toBeLessThanOrEqual(15);
    expect(perMillion(template)).toBeCloseTo(perMillion(managed), 9);
    expect(perMillion(managedNatGateway)).toBeGreaterThan(15);
    expect(costReport(managed)).toMatch(
      /Target ≤ \$15\.00 a million on Managed Instances at steady load: NAT instances \$1[0-5]\.\d\d, within it; NAT gateway \$\d+\.\d\d, above it\./,
    );
    expect(costReport(template)).toMatch(/NAT instances \$1[0-5]\.\d\d, within it/);
  });

  test('the NAT instances cost less idle than the NAT gateway, and the report says so for either', () => {
    const natInstances = streamComparison(managed);
    const natGateway = streamComparison(managedNatGateway);
    expect(total(natInstances.idle)).toBeLessThan(total(natGateway.idle));
    expect(total(natInstances.otherEgress!.idle)).toBeCloseTo(total(natGateway.idle), 9);
    expect(costReport(managed)).toContain(`With a NAT gateway instead: $${total(natGateway.idle).toFixed(2)} a month.`);
    expect(costReport(managedNatGateway)).toContain(
      `With NAT instances instead: $${total(natInstances.idle).toFixed(2)} a month.`,
    );
  });

  test('a NAT instance’s baseline carries the streams the default ceiling puts in its zone', () => {
    expect(costReport(managed)).toMatch(
      /Egress: a t4g\.small NAT instance's 0\.128 Gbps baseline carries about 1,523 streams of 10\.5 KB\/s at once; the capacity provider's ceiling \(48 vCPUs\) puts about 1,152 in each zone\./,
    );
  });

  test('the crossover is where the two monthly bills meet: on-demand below it, Managed Instances above', () => {
    for (const t of [template, managed, managedNatGateway]) {
      const comparison = streamComparison(t);
      const at = comparison.crossoverPerMonth;
      expect(Number.isFinite(at)).toBe(true);
      const bills = (streams: number) => monthlyStreamBills(comparison, streams);
      expect(bills(at).managedInstances).toBeCloseTo(bills(at).onDemand, 6);
      expect(bills(at / 2).onDemand).toBeLessThan(bills(at / 2).managedInstances);
      expect(bills(at * 2).managedInstances).toBeLessThan(bills(at * 2).onDemand);
      // With no traffic, Managed Instances cost their idle; on-demand nothing.
      expect(bills(0)).toEqual({ onDemand: 0, managedInstances: total(comparison.idle) });
    }
  });

  test('the report prints both modes side by side, the mode’s idle cost and the crossover', () => {
    for (const t of [template, managed, managedNatGateway]) {
      const report = costReport(t);
      const [own, other] =
        t === managedNatGateway ? ['NAT gateway', 'NAT instances'] : ['NAT instances', 'NAT gateway'];
      expect(report).toMatch(/Per million 20 s chat completion streams, both compute modes/);
      expect(report).toMatch(
        new RegExp(`^ {2}item +on-demand Lambda +Managed Instances, ${own} +Managed Instances, ${other}$`, 'm'),
      );
      expect(report).toMatch(/^ {2}Total +\$\d+\.\d\d +\$\d+\.\d\d +\$\d+\.\d\d$/m);
      expect(report).toContain(`Managed Instances idle cost per month, ${own}`);
      expect(report).toMatch(
        new RegExp(`Crossover: Managed Instances \\(${own}\\) cost less above [\\d,]+ streams of 20 s a month`),
      );
    }
  });

  test('the WAF web ACL is idle cost: per ACL and per rule in the template', () => {
    const acls = resourcesOf(template, 'AWS::WAFv2::WebACL');
    expect(acls.length).toBeGreaterThan(0);
    const rules = acls.reduce((sum, acl) => sum + (acl.Properties!['Rules'] as unknown[]).length, 0);
    expect(line(idleMonthlyCost(template), 'WAF web ACLs')?.usd).toBe(
      acls.length * AWS_PRICES.waf.perWebAclMonth + rules * AWS_PRICES.waf.perRuleMonth,
    );
  });
});
