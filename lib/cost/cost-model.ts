import { AWS_PRICES } from './aws-prices.js';
import { consoleDeployed, consoleIdle, consolePerMillion, DEFAULT_CONSOLE } from './console-costs.js';
import { customMetricsPerMonth, metricReach } from './custom-metrics.js';
import { DEFAULT_EXPORTS, financeExportsPerMonth, type ExportAssumptions } from './finance-exports.js';
import { DEFAULT_MEDIA_JOBS, jobPollerOf, perThousandMediaJobs, type MediaJobAssumptions } from './media-job-costs.js';
import { egressLabel, NAT_ALARMS_ITEM } from './managed-instances-egress.js';
import { grid, money, readable, table, total, wrap, type CostLine } from './table-costs.js';
import {
  compareStreamCompute,
  DEFAULT_STREAM_ASSUMPTIONS,
  managedInstancesIdle,
  managedInstancesOf,
  managedInstancesStreamCompute,
  onDemandStreamCompute,
  streamComputeReport,
  type StreamAssumptions,
} from './streaming-compute-costs.js';
import { ofType, type Template } from './template.js';

export { total, type CostLine } from './table-costs.js';
export type { Template } from './template.js';

/**
 * The operator's cost model, computed from a synthesized CloudFormation template: what the
 * stack costs a month with no traffic, and what a million gateway requests add on top. The
 * template supplies what is deployed (keys, secrets, alarms, dashboards, the chat function's
 * memory, whether tracing is on); the per-request work is a documented assumption, since it
 * depends on traffic the template cannot know. Provider (model) charges are the providers'
 * bills, not AWS's, and are left out. Three more tables price what is neither idle nor per
 * request: custom metrics (custom-metrics.ts), media job polling (media-jobs.ts) and the
 * finance exports (finance-exports.ts).
 */

/** What one representative gateway request (a chat completion) does, beyond what the template says. */
export interface RequestAssumptions {
  /** Billed Lambda duration: the function waits for the upstream model, so this dominates. */
  readonly durationMs: number;
  /**
   * DynamoDB write units: the usage ledger entry (one PartiQL INSERT of under 1 KB: 1 unit),
   * the cached answer of a non-streamed miss (about 1), and shares of a rate-limit lease and of
   * the aggregator's batched totals (about 0.1 each; `npm run bench -- scale` measures them).
   */
  readonly writeUnits: number;
  /** Read units: the key lookup, cached per instance, so only a share of requests read. */
  readonly readUnits: number;
  /** Log bytes per request: Lambda's START/END/REPORT lines, the access log line, app lines. */
  readonly logBytes: number;
  /** Share of requests X-Ray records (the default rule: 1 a second, then 5%). */
  readonly tracedShare: number;
}

export const DEFAULT_ASSUMPTIONS: RequestAssumptions = Object.freeze({
  durationMs: 2_000,
  writeUnits: 2.2,
  readUnits: 0.05,
  logBytes: 1_500,
  tracedShare: 0.05,
});

/** A WAF log line per request, about (its JSON names the request's headers and the rules that matched). */
const WAF_LOG_BYTES = 1_500;

/** The route whose function serves the representative request. */
export const REPRESENTATIVE_FUNCTION = /^EndpointsChatCompletionsFunction[0-9A-F]{8}$/;

function countLine(template: Template, type: string, item: string, unitPrice: number, unit: string): CostLine[] {
  const count = ofType(template, type).length;
  return count === 0 ? [] : [{ item, usd: count * unitPrice, basis: `${count} × ${money(unitPrice)} ${unit}` }];
}

/**
 * CloudWatch bills a standard alarm per metric it reads: a math alarm over two metrics costs
 * two alarm-months.
 */
function alarmLines(template: Template): CostLine[] {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm');
  if (alarms.length === 0) return [];
  const metrics = alarms.reduce((sum, [, alarm]) => {
    const queries = (alarm.Properties?.['Metrics'] as { MetricStat?: unknown }[] | undefined) ?? [];
    return sum + (queries.length === 0 ? 1 : queries.filter((query) => query.MetricStat).length);
  }, 0);
  return [
    {
      item: 'CloudWatch alarms',
      usd: metrics * AWS_PRICES.cloudWatch.perStandardAlarmMonth,
      basis: `${alarms.length} alarms reading ${metrics} metrics × ${money(AWS_PRICES.cloudWatch.perStandardAlarmMonth)} per metric-month`,
    },
  ];
}

/** What the stack costs a month with no traffic at all. */
export function idleMonthlyCost(template: Template): CostLine[] {
  const p = AWS_PRICES;
  return [
    ...countLine(template, 'AWS::KMS::Key', 'KMS customer managed keys', p.kms.perKeyMonth, 'per key-month'),
    ...countLine(
      template,
      'AWS::SecretsManager::Secret',
      'Secrets Manager secrets',
      p.secretsManager.perSecretMonth,
      'per secret-month',
    ),
    ...alarmLines(template),
    ...countLine(
      template,
      'AWS::CloudWatch::Dashboard',
      'CloudWatch dashboards',
      p.cloudWatch.perDashboardMonth,
      'per dashboard-month',
    ),
    ...wafIdle(template),
    ...managedInstancesDeployedIdle(template),
    ...consoleIdle(template),
  ];
}

/** The mode's idle lines once deployed, but its NAT instances' alarms: the alarm line above counts those. */
function managedInstancesDeployedIdle(template: Template): CostLine[] {
  const shape = managedInstancesOf(template);
  if (!shape.deployed) return [];
  return managedInstancesIdle(shape).filter((line) => line.item !== NAT_ALARMS_ITEM);
}

function wafIdle(template: Template): CostLine[] {
  const acls = ofType(template, 'AWS::WAFv2::WebACL');
  if (acls.length === 0) return [];
  const rules = acls.reduce(
    (sum, [, acl]) => sum + ((acl.Properties?.['Rules'] as unknown[] | undefined)?.length ?? 0),
    0,
  );
  const usd = acls.length * AWS_PRICES.waf.perWebAclMonth + rules * AWS_PRICES.waf.perRuleMonth;
  return [{ item: 'WAF web ACLs', usd, basis: `${acls.length} ACL(s), ${rules} rule(s)` }];
}

/** What a million representative requests add, for the deployed stack and the assumptions. */
export function perMillionRequests(
  template: Template,
  assumptions: RequestAssumptions = DEFAULT_ASSUMPTIONS,
): CostLine[] {
  const [gateway, ...shared] = sharedPerMillion(template, assumptions);
  return [gateway!, ...computePerMillion(template, assumptions.durationMs), ...shared, ...consolePerMillion(template)];
}

/**
 * The function's own lines for requests of this length: Lambda's requests and GB-seconds, or on
 * Managed Instances the requests, the instance time and the egress data the streams take.
 */
function computePerMillion(template: Template, durationMs: number): CostLine[] {
  const seconds = durationMs / 1000;
  const shape = managedInstancesOf(template);
  if (!shape.deployed)
    return onDemandStreamCompute(template, { ...DEFAULT_STREAM_ASSUMPTIONS, streamSeconds: seconds });
  const { streamSeconds, egressBytesPerStream } = DEFAULT_STREAM_ASSUMPTIONS;
  return managedInstancesStreamCompute(shape, {
    ...DEFAULT_STREAM_ASSUMPTIONS,
    streamSeconds: seconds,
    // The answer's bytes grow with its length.
    egressBytesPerStream: (egressBytesPerStream * seconds) / streamSeconds,
  });
}

/** Every per-request line but the function's own: API Gateway first, then the rest. */
function sharedPerMillion(template: Template, assumptions: RequestAssumptions): CostLine[] {
  const p = AWS_PRICES;
  chatFunctionMemoryCheck(template);
  const logGb = (assumptions.logBytes * 1e6) / 1024 ** 3;
  const lines: CostLine[] = [
    { item: 'API Gateway REST requests', usd: p.apiGateway.perMillionRequests, basis: 'per million requests' },
    {
      item: 'DynamoDB writes',
      usd: assumptions.writeUnits * p.dynamodb.perMillionWriteUnits,
      basis: `${assumptions.writeUnits} write units a request, on-demand`,
    },
    {
      item: 'DynamoDB reads',
      usd: assumptions.readUnits * p.dynamodb.perMillionReadUnits,
      basis: `${assumptions.readUnits} read units a request (key lookups cached per instance)`,
    },
    {
      item: 'CloudWatch Logs ingestion',
      usd: logGb * p.cloudWatch.perLogGbIngested,
      basis: `${assumptions.logBytes} bytes a request`,
    },
  ];
  if (tracingActive(template)) {
    lines.push({
      item: 'X-Ray traces',
      usd: assumptions.tracedShare * p.xray.perMillionTracesRecorded,
      basis: `${assumptions.tracedShare * 100}% of requests recorded`,
    });
  }
  if (
    ofType(template, 'AWS::WAFv2::WebACLAssociation').length > 0 ||
    ofType(template, 'AWS::WAFv2::WebACL').length > 0
  ) {
    lines.push({ item: 'WAF requests', usd: p.waf.perMillionRequests, basis: 'per million requests inspected' });
  }
  if (ofType(template, 'AWS::WAFv2::LoggingConfiguration').length > 0) {
    // WAF writes one JSON line per inspected request (headers, rule matches): about 1.5 KB.
    const wafLogGb = (WAF_LOG_BYTES * 1e6) / 1024 ** 3;
    lines.push({
      item: 'WAF logs ingestion',
      usd: wafLogGb * p.cloudWatch.perLogGbIngested,
      basis: `${WAF_LOG_BYTES} bytes a request, CloudWatch Logs`,
    });
  }
  return lines;
}

function chatFunctionMemoryCheck(template: Template): void {
  const found = Object.entries(template.Resources).some(
    ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && REPRESENTATIVE_FUNCTION.test(id),
  );
  if (!found) throw new Error('the template has no chat completions function (EndpointsChatCompletionsFunction…)');
}

function tracingActive(template: Template): boolean {
  return ofType(template, 'AWS::Lambda::Function').some(
    ([, fn]) => (fn.Properties?.['TracingConfig'] as { Mode?: string } | undefined)?.Mode === 'Active',
  );
}

/** What the report assumes beyond a representative request: media jobs, and finance exports' traffic. */
export interface ReportAssumptions {
  readonly mediaJobs: MediaJobAssumptions;
  readonly exports: ExportAssumptions;
  readonly streams: StreamAssumptions;
}

export const DEFAULT_REPORT_ASSUMPTIONS: ReportAssumptions = Object.freeze({
  mediaJobs: DEFAULT_MEDIA_JOBS,
  exports: DEFAULT_EXPORTS,
  streams: DEFAULT_STREAM_ASSUMPTIONS,
});

/** Both compute modes for `a.streamSeconds` streams: the per-request lines they share, at that length. */
export function streamComparison(
  template: Template,
  assumptions: RequestAssumptions = DEFAULT_ASSUMPTIONS,
  a: StreamAssumptions = DEFAULT_STREAM_ASSUMPTIONS,
) {
  return compareStreamCompute(
    template,
    sharedPerMillion(template, { ...assumptions, durationMs: a.streamSeconds * 1000 }),
    a,
  );
}

/** The five tables, as `npm run cost` prints them, and what each rests on. */
export function costReport(
  template: Template,
  assumptions: RequestAssumptions = DEFAULT_ASSUMPTIONS,
  more: ReportAssumptions = DEFAULT_REPORT_ASSUMPTIONS,
): string {
  const perMonth = readable(more.exports.requestsPerMonth);
  return [
    table('Idle cost per month (no traffic)', idleMonthlyCost(template)),
    '',
    table(
      'Infrastructure cost per million gateway requests (chat completions)',
      perMillionRequests(template, assumptions),
    ),
    '',
    ...streamComputeReport(streamComparison(template, assumptions, more.streams), more.streams),
    '',
    table(
      'CloudWatch custom metrics per month at full activity (see the note: neither idle nor per request)',
      customMetricsPerMonth(template),
    ),
    '',
    mediaJobsTable(template, more.mediaJobs),
    '',
    table(`Finance exports per month at ${perMonth} requests a month`, financeExportsPerMonth(template, more.exports)),
    '',
    ...notes(template, more),
  ].join('\n');
}

function mediaJobsTable(template: Template, assumptions: MediaJobAssumptions): string {
  const jobs = perThousandMediaJobs(template, assumptions);
  const items = jobs[0]?.lines.map((line) => line.item) ?? [];
  return grid(
    'Media job polling per thousand jobs (job poller: Step Functions Standard and its poll function)',
    ['kind', 'polls a job', 'transitions', ...items, 'Total'],
    jobs.map((job) => [
      job.kind.kind,
      readable(job.polls),
      readable(job.transitions),
      ...job.lines.map((line) => money(line.usd)),
      money(total(job.lines)),
    ]),
  );
}

function notes(template: Template, more: ReportAssumptions): string[] {
  const poller = jobPollerOf(template);
  const reach = metricReach(template);
  const invocations = poller.pollFunctionsMb.length;
  const kinds = more.mediaJobs.kinds.map((k) => `${k.kind} every ${k.pollIntervalSeconds} s for ${k.typicalSeconds} s`);
  const e = more.exports;
  const st = more.streams;
  const mi = managedInstancesOf(template);
  return [
    `Streams: a ${st.streamSeconds} s streamed chat completion. On-demand Lambda bills the chat function's memory
    for the whole stream. Managed Instances bill the instances: ${mi.environment.concurrency} streams share an
    environment of ${mi.environment.memoryMb} MB, environments hold ${st.steadyFill * 100}% of that on average at
    steady load, ${mi.environmentsPerInstance} fit a ${mi.instanceType} after the vCPU and GiB it keeps for itself,
    and each stream's ${Math.round(st.egressBytesPerStream / 1000)} KB to and from the upstream pass the VPC's NAT:
    a NAT gateway charges for each GB, a NAT instance nothing (data in from the internet is free; the prompt's
    few KB out to the internet cost the same through either and, like all data transfer out, are not in the
    model), and the answer to the caller is counted as leaving by Lambda's invoke path. ${
      mi.deployed
        ? 'The mode is deployed: its shape is read from the template, and on-demand is priced at the manifest memory.'
        : 'The mode is not deployed: it is priced with the defaults of -c streamingCompute=managed-instances.'
    } Its idle cost is the warm environments (${mi.minEnvironments}, spread over ${mi.zones} zones) and the
    egress (${egressLabel(mi.egress)}: their hours, public IPv4 addresses${mi.egress.mode === 'nat-instances' ? ', root volumes and alarms' : ''}); the crossover compares the two bills for the streams alone, the warm instances carrying the first
    streams at no further instance cost.`,
    `Custom metrics: each metric name and set of dimension values the functions publish (EMF) is billed per
    month, prorated by the hour and only for the hours it is published in. An idle month publishes none, and
    at steady traffic the count does not grow with requests, so the table is a bound of its own: every route
    (${reach.routes.length}, of which ${reach.chatRoutes.length} run the chat core) called and every catalog
    model (${reach.chatTargets.length} provider and model pairs, and web search) used in every hour of the
    month. Fewer active hours, routes or models cost proportionally less.`,
    `Media jobs: one job poller execution a job, billed per state entered. Its loop
    (${poller.run.loop.join(' → ')}: ${poller.run.loop.length} states and ${invocations} function
    invocation${invocations === 1 ? '' : 's'} a poll, of ${poller.pollFunctionsMb.join(' + ')} MB, billed
    ${more.mediaJobs.pollDurationMs} ms each as assumed) is read from the template's definition; the last poll
    leaves through ${poller.run.exit.join(' → ')}. Polls a job: the typical duration over the poll interval,
    rounded up (${kinds.join(', ')}). The submit and status calls are gateway requests, priced above.`,
    `Finance exports: one incremental export a day, priced by the changes it processes (a ledger entry and its
    day-total rewrite, ${e.ledgerItemBytes} + ${e.dayTotalBytes} bytes a request) and stored gzipped
    (${e.storedBytesPerEntry} bytes an entry) for about 7 years, so each month's storage line is added to every
    later month's bill. Athena: ${e.athenaQueriesPerMonth} queries a month, each reading ${e.monthsScanned}
    months of exports, at most the workgroup's bytes-scanned limit.`,
    ...(consoleDeployed(template)
      ? [
          `Console: the distribution costs nothing idle. The per-request table prices every request as if a
    browser made it through the distribution (an upper bound: backends calling the API's own URL pay none
    of it), ${DEFAULT_CONSOLE.pageLoadsPerMillion.toLocaleString('en-US')} console page loads of
    ${DEFAULT_CONSOLE.filesPerLoad} files a million requests, each file request running the path rewrite,
    and ${DEFAULT_CONSOLE.missShare * 100}% of them read from S3.`,
        ]
      : []),
    `Not included: model providers' charges (their own bills), DynamoDB storage and backups, S3 access logs and
    Athena results (per GB held), data transfer out but CloudFront's (the console's distribution), KMS requests (the exports bucket uses a bucket key), the
    Glue Data Catalog (within its free tier), X-Ray traces of job executions, and the free tiers, which lower
    small bills further.`,
  ].flatMap((paragraph, i) => [...(i === 0 ? [] : ['']), ...wrap(paragraph)]);
}
