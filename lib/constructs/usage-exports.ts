import { Duration, Size, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ATHENA_RESULTS_PREFIX, ExportBuckets } from './export-buckets.js';
import { ExportSchedule } from './export-schedule.js';
import { UsageCatalog } from './usage-catalog.js';

export interface UsageExportsProps {
  /** The usage table; point-in-time recovery must be on (exports read from it). */
  readonly table: ITableV2;
  /** Encrypts the exports, Athena's results and the state machine's S3 writes. */
  readonly encryptionKey: IKey;
  /**
   * When the daily export runs (UTC); it exports the UTC day before. Keep it a few minutes
   * after midnight: point-in-time recovery lags real time by about five minutes.
   * @default ScheduleExpression.cron({ minute: '15', hour: '0' }): 00:15 UTC every day
   */
  readonly schedule?: ScheduleExpression;
  /** How long exports are kept (after 90 days they move to S3 Infrequent Access). @default Duration.days(2557), about 7 years */
  readonly exportRetention?: Duration;
  /** How long Athena's query results are kept. @default Duration.days(30) */
  readonly athenaResultsRetention?: Duration;
  /** How long the exports bucket's server access logs are kept. @default Duration.days(365) */
  readonly accessLogRetention?: Duration;
  /** Athena cancels a query that would scan more. @default Size.gibibytes(10) */
  readonly bytesScannedCutoffPerQuery?: Size;
  /** Retention of the export state machine's log group. @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
}

/**
 * Usage exports for finance: a scheduled daily incremental export of the usage table to an
 * encrypted bucket, a failure alarm, and Glue tables plus an Athena workgroup with named
 * queries over the exports. docs/finance.md describes the layout and the item schema.
 */
export class UsageExports extends Construct {
  readonly bucket: Bucket;
  readonly accessLogBucket: Bucket;
  readonly stateMachine: StateMachine;
  /** Fires when a scheduled export fails, times out, is aborted or is never started; wire it to the alarm topic. */
  readonly failureAlarm: Alarm;
  readonly catalog: UsageCatalog;
  readonly databaseName: string;
  readonly workGroupName: string;

  constructor(scope: Construct, id: string, props: UsageExportsProps) {
    super(scope, id);
    const buckets = new ExportBuckets(this, 'Buckets', {
      encryptionKey: props.encryptionKey,
      exportRetention: props.exportRetention ?? Duration.days(2557),
      athenaResultsRetention: props.athenaResultsRetention ?? Duration.days(30),
      accessLogRetention: props.accessLogRetention ?? Duration.days(365),
    });
    this.bucket = buckets.exports;
    this.accessLogBucket = buckets.accessLogs;
    const schedule = new ExportSchedule(this, 'Schedule', {
      table: props.table,
      bucket: this.bucket,
      encryptionKey: props.encryptionKey,
      schedule: props.schedule ?? ScheduleExpression.cron({ minute: '15', hour: '0' }),
      logRetention: props.logRetention ?? RetentionDays.ONE_YEAR,
    });
    this.stateMachine = schedule.stateMachine;
    this.failureAlarm = schedule.failureAlarm;
    // Named after the stack, so several gateway stacks can share an account and region.
    const stackName = Stack.of(this).stackName;
    this.databaseName = `${stackName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_usage`;
    this.workGroupName = `${stackName}-usage`;
    this.catalog = new UsageCatalog(this, 'Catalog', {
      bucket: this.bucket,
      encryptionKey: props.encryptionKey,
      databaseName: this.databaseName,
      workGroupName: this.workGroupName,
      athenaResultsPrefix: ATHENA_RESULTS_PREFIX,
      bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery ?? Size.gibibytes(10),
    });
  }
}
