import { AWS_PRICES } from './aws-prices.js';

/**
 * The operator's cost model, computed from a synthesized CloudFormation template: what the
 * stack costs a month with no traffic, and what a million gateway requests add on top. The
 * template supplies what is deployed (keys, secrets, alarms, dashboards, the chat function's
 * memory, whether tracing is on); the per-request work is a documented assumption, since it
 * depends on traffic the template cannot know. Provider (model) charges are the providers'
 * bills, not AWS's, and are left out.
 */

export interface CostLine {
  readonly item: string;
  /** USD. */
  readonly usd: number;
  /** How the figure was reached: the count and unit price, or the assumption. */
  readonly basis: string;
}

/** What one representative gateway request (a chat completion) does, beyond what the template says. */
export interface RequestAssumptions {
  /** Billed Lambda duration: the function waits for the upstream model, so this dominates. */
  readonly durationMs: number;
  /**
   * DynamoDB write units: the usage ledger entry and its day total, both in one transaction
   * (a transaction costs two units per item of up to 1 KB), plus a share of a rate-limit lease.
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
  writeUnits: 4.1,
  readUnits: 0.05,
  logBytes: 1_500,
  tracedShare: 0.05,
});

/** The route whose function serves the representative request. */
export const REPRESENTATIVE_FUNCTION = /^EndpointsChatCompletionsFunction[0-9A-F]{8}$/;

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

export interface Template {
  readonly Resources: Record<string, Resource>;
}

const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

function ofType(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

function countLine(template: Template, type: string, item: string, unitPrice: number, unit: string): CostLine[] {
  const count = ofType(template, type).length;
  return count === 0 ? [] : [{ item, usd: count * unitPrice, basis: `${count} × ${money(unitPrice)} ${unit}` }];
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
    ...countLine(
      template,
      'AWS::CloudWatch::Alarm',
      'CloudWatch alarms',
      p.cloudWatch.perStandardAlarmMonth,
      'per alarm-month',
    ),
    ...countLine(
      template,
      'AWS::CloudWatch::Dashboard',
      'CloudWatch dashboards',
      p.cloudWatch.perDashboardMonth,
      'per dashboard-month',
    ),
    ...wafIdle(template),
  ];
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
  const p = AWS_PRICES;
  const memoryMb = representativeMemoryMb(template);
  const gbSeconds = (memoryMb / 1024) * (assumptions.durationMs / 1000) * 1e6;
  const logGb = (assumptions.logBytes * 1e6) / 1024 ** 3;
  const lines: CostLine[] = [
    { item: 'API Gateway REST requests', usd: p.apiGateway.perMillionRequests, basis: 'per million requests' },
    { item: 'Lambda requests', usd: p.lambda.perMillionRequests, basis: 'per million invocations' },
    {
      item: 'Lambda compute',
      usd: gbSeconds * p.lambda.perGbSecond,
      basis: `${memoryMb} MB × ${assumptions.durationMs} ms, arm64`,
    },
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
  return lines;
}

export const total = (lines: readonly CostLine[]) => lines.reduce((sum, line) => sum + line.usd, 0);

function representativeMemoryMb(template: Template): number {
  const found = Object.entries(template.Resources).find(
    ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && REPRESENTATIVE_FUNCTION.test(id),
  );
  if (!found) throw new Error('the template has no chat completions function (EndpointsChatCompletionsFunction…)');
  const memory = found[1].Properties?.['MemorySize'];
  return typeof memory === 'number' ? memory : 128;
}

function tracingActive(template: Template): boolean {
  return ofType(template, 'AWS::Lambda::Function').some(
    ([, fn]) => (fn.Properties?.['TracingConfig'] as { Mode?: string } | undefined)?.Mode === 'Active',
  );
}

/** The two tables, as `npm run cost` prints them. */
export function costReport(template: Template, assumptions: RequestAssumptions = DEFAULT_ASSUMPTIONS): string {
  const idle = idleMonthlyCost(template);
  const perMillion = perMillionRequests(template, assumptions);
  return [
    table('Idle cost per month (no traffic)', idle),
    '',
    table('Infrastructure cost per million gateway requests (chat completions)', perMillion),
    '',
    "Not included: model providers' charges (their own bills), DynamoDB and S3 storage and",
    'backups (per GB held), data transfer out, Step Functions job polling (per media job), and',
    'the free tiers, which lower small bills further.',
  ].join('\n');
}

function table(title: string, lines: readonly CostLine[]): string {
  const width = Math.max(...lines.map((line) => line.item.length), 'Total'.length);
  const rows = lines.map((line) => `  ${line.item.padEnd(width)}  ${money(line.usd).padStart(10)}  ${line.basis}`);
  return [title, ...rows, `  ${'Total'.padEnd(width)}  ${money(total(lines)).padStart(10)}`].join('\n');
}
