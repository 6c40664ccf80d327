import { Annotations, Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { DIMENSION, METRIC } from '../../lambdas/observability/metric-names.js';
import { observabilityNames, pascal, type ObservabilityNames } from '../names.js';

/** Functions one failure alarm watches: errors and throttles of each, ten metrics, an alarm's most. */
const FUNCTIONS_PER_ALARM = 5;

/** The `service` dimension Powertools adds to every metric the functions emit. */
const PERIOD = Duration.minutes(5);

export interface MonitoringProps {
  readonly api: RestApi;
  /** Encrypts the alarm topic; CloudWatch is allowed to use it for publishing. */
  readonly encryptionKey: IKey;
  /** The endpoint functions, by route id: throttle alarms and the dashboard. */
  readonly functions: ReadonlyMap<string, IFunction>;
  /** Upstream providers that get an error-rate alarm each. */
  readonly providers: readonly string[];
  /** Subscribed to the alarm topic when set. @default - none: subscribe after deploy (synth warns) */
  readonly alarmEmail?: string;
  /** Tables whose throttled requests raise an alarm, by name. @default - none */
  readonly tables?: ReadonlyMap<string, ITableV2>;
  /**
   * The account's regional Lambda concurrency quota: concurrency near it raises an alarm.
   * @default - no concurrency alarm
   */
  readonly accountConcurrency?: number;
  /** Alarm thresholds. @default DEFAULT_THRESHOLDS */
  readonly thresholds?: Partial<AlarmThresholds>;
}

export interface AlarmThresholds {
  /** Percentage of API requests answered 5xx, over 5 minutes. */
  readonly serverErrorPercent: number;
  /** Percentage of one provider's upstream attempts that failed, over 5 minutes. */
  readonly upstreamErrorPercent: number;
  /** p99 of the time until the response (headers, for a stream), over 5 minutes. */
  readonly p99LatencyMs: number;
  /** Streams that ended in a server error frame after their 200, over 5 minutes. */
  readonly streamFailures: number;
  /**
   * Throttled requests of one table over 5 minutes. Some are absorbed (the client's retries,
   * the usage retry queue); many mean a hot partition or a table past its on-demand peak.
   */
  readonly tableThrottles: number;
  /** Share of the account's concurrency quota in use (maximum over a minute). */
  readonly concurrencyShare: number;
  /** Calls answered 401 over 5 minutes, all routes: a credential-guessing run or a broken client fleet. */
  readonly authFailures: number;
}

export const DEFAULT_THRESHOLDS: AlarmThresholds = {
  serverErrorPercent: 5,
  upstreamErrorPercent: 20,
  p99LatencyMs: 15_000,
  streamFailures: 10,
  tableThrottles: 50,
  concurrencyShare: 0.8,
  authFailures: 500,
};

/**
 * The operator's view: an SNS topic (KMS-encrypted, TLS only, e-mail from context) that every
 * alarm notifies, the alarms, and one dashboard with the main figures. Constructs added later
 * (job state machines, the usage export) attach through `monitorStateMachine` / `monitorAlarm`.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const names = observabilityNames(Stack.of(this).stackName);
    const thresholds = { ...DEFAULT_THRESHOLDS, ...props.thresholds };
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: 'AI gateway alarms',
      masterKey: props.encryptionKey,
      enforceSSL: true,
    });
    // CloudWatch publishes to an encrypted topic only if the key lets it; only this account's
    // alarms may, so the service cannot be used as a deputy by another account's alarm.
    const { account, region, partition } = Stack.of(this);
    props.encryptionKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    else
      Annotations.of(this).addWarningV2(
        'gateway:alarm-topic-without-subscriber',
        'The alarm topic has no subscriber: alarms will notify nobody. Deploy with -c alarmEmail=<address>, ' +
          'or subscribe to the AlarmTopicArn output after the deploy.',
      );
    this.action = new SnsAction(this.topic);

    const serverErrorRate = percentOf(
      props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      props.api.metricCount({ period: PERIOD, statistic: 'Sum' }),
      'API 5xx %',
    );
    this.alarm('ApiServerErrorRate', serverErrorRate, thresholds.serverErrorPercent, 'API Gateway 5xx rate (%)');

    const p99 = gatewayMetric(names, METRIC.requestDuration, {}, 'p99');
    this.alarm('LatencyP99', p99, thresholds.p99LatencyMs, 'p99 time to response (ms), all routes');

    const upstreamRates = props.providers.map((provider) => {
      const dimensions = { [DIMENSION.provider]: provider };
      const rate = percentOf(
        gatewayMetric(names, METRIC.upstreamErrors, dimensions, 'Sum'),
        gatewayMetric(names, METRIC.upstreamRequests, dimensions, 'Sum'),
        provider,
        provider.replace(/[^a-z0-9]/g, '_'),
      );
      this.alarm(
        `UpstreamErrorRate${pascal(provider)}`,
        rate,
        thresholds.upstreamErrorPercent,
        `${provider} upstream error rate (%)`,
      );
      return rate;
    });

    this.alarm(
      'StreamsFailed',
      gatewayMetric(names, METRIC.streamsFailed, {}, 'Sum'),
      thresholds.streamFailures,
      'streams that ended in a server error frame after their 200 (the 5xx alarm cannot see them)',
    );
    this.alarm(
      'AuthFailures',
      gatewayMetric(names, METRIC.authFailures, {}, 'Sum'),
      thresholds.authFailures,
      'calls answered 401, all routes (credential guessing, or clients with a revoked key)',
    );
    this.alarm(
      'UsageNotRecorded',
      gatewayMetric(names, METRIC.usageNotRecorded, {}, 'Sum'),
      1,
      'usage entries neither the ledger nor the retry queue took: recover them from the "usage entry not written" log lines',
    );
    // Every table's throttled reads and writes in one alarm (an alarm's metric math takes ten
    // metrics, the four tables eight): an alarm per table would cost a stack resource each, and
    // the dashboard's throttle graph tells which table.
    const tables = [...(props.tables ?? [])];
    if (tables.length > 0) {
      const usingMetrics = Object.fromEntries(
        tables.flatMap(([, table], i) => [
          [`r${i}`, table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' })],
          [`w${i}`, table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' })],
        ]),
      );
      const throttled = new MathExpression({
        expression: `SUM([${Object.keys(usingMetrics)
          .map((name) => `FILL(${name}, 0)`)
          .join(', ')}])`,
        usingMetrics,
        period: PERIOD,
        label: 'throttled table requests',
      });
      const names = tables.map(([name]) => name).join(', ');
      this.alarm('TableThrottles', throttled, thresholds.tableThrottles, `tables throttled (${names})`);
    }
    if (props.accountConcurrency !== undefined) {
      const concurrency = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'ConcurrentExecutions',
        period: Duration.minutes(1),
        statistic: 'Maximum',
      });
      this.alarm(
        'AccountConcurrency',
        concurrency,
        Math.floor(props.accountConcurrency * thresholds.concurrencyShare),
        `Lambda concurrency at ${thresholds.concurrencyShare * 100}% of the account's ${props.accountConcurrency} (every function in the account and region counts)`,
      );
    }

    const throttles = [...props.functions].map(([routeId, fn]) => ({
      routeId,
      errors: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
      throttles: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
    }));
    // Function errors are crashes and timeouts: the handlers answer every failure they know. One
    // alarm watches FUNCTIONS_PER_ALARM functions (an alarm's metric math takes ten metrics):
    // an alarm per function would cost a stack resource each, and the stack's 500 run out.
    for (let first = 0; first < throttles.length; first += FUNCTIONS_PER_ALARM) {
      const group = throttles.slice(first, first + FUNCTIONS_PER_ALARM);
      const usingMetrics = Object.fromEntries(
        group.flatMap((entry, i) => [
          [`e${i}`, entry.errors],
          [`t${i}`, entry.throttles],
        ]),
      );
      const failed = new MathExpression({
        expression: `SUM([${Object.keys(usingMetrics)
          .map((name) => `FILL(${name}, 0)`)
          .join(', ')}])`,
        usingMetrics,
        period: PERIOD,
        label: 'errors and throttles',
      });
      const routeIds = group.map((entry) => entry.routeId);
      this.alarm(
        `FunctionFailures${first / FUNCTIONS_PER_ALARM + 1}`,
        failed,
        1,
        `a function failed (errors or throttles; the dashboard's Throttles graph tells which): ${routeIds.join(', ')}`,
      );
    }
    const throttleLines = throttles.map(({ routeId, throttles: metric }) => metric.with({ label: routeId }));

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      graph('Requests and 5xx', [
        props.api.metricCount({ period: PERIOD }),
        props.api.metricServerError({ period: PERIOD }),
      ]),
      graph('Latency (ms)', [
        props.api.metricLatency({ period: PERIOD, statistic: 'p50' }),
        props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
        p99,
      ]),
      graph('Upstream error rate by provider (%)', upstreamRates),
    );
    const byModel = [DIMENSION.provider, DIMENSION.model];
    this.dashboard.addWidgets(
      graph('Tokens by model and type', [
        gatewaySearch(names, METRIC.tokenUsage, [...byModel, DIMENSION.tokenType], 'Sum'),
      ]),
      graph('Cost by model (micro-USD)', [gatewaySearch(names, METRIC.costMicroUsd, byModel, 'Sum')]),
      graph('p99 time to first chunk by model (s)', [gatewaySearch(names, METRIC.timeToFirstChunk, byModel, 'p99')]),
    );
    this.dashboard.addWidgets(
      graph('Throttles', throttleLines),
      graph('Cache, retries, fallbacks', [
        gatewayTotal(names, METRIC.cacheHits, 'cache hits'),
        gatewayTotal(names, METRIC.cacheMisses, 'cache misses'),
        gatewayTotal(names, METRIC.retries, 'retries'),
        gatewayTotal(names, METRIC.fallbacks, 'fallbacks'),
      ]),
      graph('Media jobs ended by kind and outcome; p90 duration (s)', [
        gatewaySearch(names, METRIC.jobsEnded, [DIMENSION.jobKind, DIMENSION.jobPhase], 'Sum'),
        gatewaySearch(names, METRIC.jobDuration, [DIMENSION.jobKind], 'p90'),
      ]),
    );
  }

  /** Failed, timed-out or aborted executions of a job state machine raise an alarm. */
  monitorStateMachine(id: string, machine: IStateMachine): Alarm {
    // Failures and throttled transitions in one alarm: one stack resource per machine, not two.
    const failures = new MathExpression({
      expression: 'FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0) + FILL(throttled, 0)',
      usingMetrics: {
        failed: machine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
        timedOut: machine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
        aborted: machine.metricAborted({ period: PERIOD, statistic: 'Sum' }),
        throttled: machine.metric('ExecutionThrottled', { period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: `${id} failed executions and throttled transitions`,
    });
    return this.alarm(
      `FailedExecutions${pascal(id)}`,
      failures,
      1,
      `${id}: failed job executions or Step Functions throttled state transitions`,
    );
  }

  /** An alarm made elsewhere (e.g. the usage export's) notifies the same topic. */
  monitorAlarm(alarm: Alarm): void {
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
  }

  private alarm(id: string, metric: IMetric, threshold: number, description: string): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      alarmDescription: `AI gateway: ${description}`,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.monitorAlarm(alarm);
    return alarm;
  }

  /** A widget of every alarm's state, added last so it lists the ones attached later too. */
  addAlarmStatus(): void {
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
  }
}

function gatewayMetric(
  names: ObservabilityNames,
  name: string,
  dimensions: Record<string, string>,
  statistic: string,
  label?: string,
): Metric {
  return new Metric({
    namespace: names.namespace,
    metricName: name,
    dimensionsMap: { service: names.service, ...dimensions },
    statistic,
    period: PERIOD,
    label,
  });
}

/**
 * Every series of a metric filed under these dimensions (dashboards may search; alarms may
 * not). Dimension names are quoted: they contain dots.
 */
function gatewaySearch(
  names: ObservabilityNames,
  name: string,
  dimensions: readonly string[],
  statistic: string,
): MathExpression {
  const schema = [names.namespace, ...[...dimensions, 'service'].map((key) => `"${key}"`)].join(',');
  return new MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${name}"', '${statistic}', ${PERIOD.toSeconds()})`,
    period: PERIOD,
  });
}

/** A per-route count summed over every route. */
function gatewayTotal(names: ObservabilityNames, name: string, label: string): MathExpression {
  return new MathExpression({
    expression: `SUM(${gatewaySearch(names, name, [DIMENSION.route], 'Sum').expression})`,
    label,
    period: PERIOD,
  });
}

/**
 * 100 × part / whole, and 0 (not missing) when there was nothing to divide. `key` names the
 * inputs: one graph showing several rates needs distinct ids for them.
 */
function percentOf(part: IMetric, whole: IMetric, label: string, key = 'all'): MathExpression {
  const [p, w] = [`${key}_part`, `${key}_whole`];
  return new MathExpression({
    expression: `IF(${w} > 0, 100 * ${p} / ${w}, 0)`,
    usingMetrics: { [p]: part, [w]: whole },
    period: PERIOD,
    label,
  });
}

function graph(title: string, left: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left, width: 8 });
}
