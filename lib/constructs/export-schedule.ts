import { Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import {
  ContextAttribute,
  Schedule,
  ScheduleGroup,
  ScheduleTargetInput,
  type ScheduleExpression,
} from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  LogLevel,
  Pass,
  StateMachine,
  StateMachineType,
  Succeed,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { CallAwsService } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct, type IConstruct } from 'constructs';
import { INCREMENTAL_PREFIX, incrementalDayPrefix } from './export-layout.js';

/**
 * The wildcards the export role needs: DynamoDB names each export's files and the export itself
 * (its id is generated when it starts), so neither is known in advance; X-Ray and log delivery
 * take no resource.
 */
function acknowledgeExportWildcards(stateMachine: StateMachine, props: ExportScheduleProps): void {
  const arnOf = (resource: IConstruct) =>
    `<${Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnElement)}.Arn>`;
  Validations.of(stateMachine.role.node.tryFindChild('DefaultPolicy')!).acknowledge(
    {
      id: `AwsSolutions-IAM5[Resource::${arnOf(props.bucket)}/${INCREMENTAL_PREFIX}/*]`,
      reason: `DynamoDB writes an export as many objects whose keys it chooses (<day folder>/AWSDynamoDB/<export id>/...), so the export role may write any object under the ${INCREMENTAL_PREFIX}/ prefix of the exports bucket, and only there.`,
    },
    {
      id: `AwsSolutions-IAM5[Resource::${arnOf(props.table)}/export/*]`,
      reason:
        'DescribeExport takes the export ARN, <table ARN>/export/<id>, whose id DynamoDB generates when the export starts; the pattern covers only exports of the usage table.',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray trace segments and CloudWatch Logs log delivery (PutTraceSegments, CreateLogDelivery, ...) do not support resource-level permissions; the statement grants only those actions.',
    },
  );
}

export interface ExportScheduleProps {
  readonly table: ITableV2;
  readonly bucket: IBucket;
  readonly encryptionKey: IKey;
  readonly schedule: ScheduleExpression;
  readonly logRetention: RetentionDays;
}

/**
 * The window an execution exports: the UTC day before the schedule fired, `[from, to)`, and
 * that day's date, which names the export's folder (the `day` partition). A day per export
 * keeps each file set one finance day, and the schedule firing after midnight leaves
 * DynamoDB time to make the day restorable (point-in-time recovery lags by a few minutes).
 * JSONata, because JSONPath cannot do date arithmetic; an execution started by hand without
 * `scheduledTime` exports the day before its start.
 */
const DAY_MS = 86_400_000;
const END = '$exists($states.input.scheduledTime) ? $states.input.scheduledTime : $states.context.Execution.StartTime';
const windowEdge = (daysBefore: number, picture = '') =>
  `{% ($end := ${END}; $midnight := $floor($toMillis($end) / ${DAY_MS}) * ${DAY_MS}; $fromMillis($midnight - ${daysBefore * DAY_MS}${picture})) %}`;

/** How often a running export's status is checked. */
const POLL_INTERVAL = Duration.minutes(5);

/**
 * A Standard state machine, started daily by EventBridge Scheduler, that starts an incremental
 * export of the usage table, follows it to its end (an export fails asynchronously, after the
 * call that starts it succeeded), and fails when the export does; `failureAlarm` watches it.
 */
export class ExportSchedule extends Construct {
  readonly stateMachine: StateMachine;
  readonly schedule: Schedule;
  readonly failureAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ExportScheduleProps) {
    super(scope, id);
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(this.definition(props)),
      timeout: Duration.hours(12),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'Logs', { retention: props.logRetention }),
        level: LogLevel.ALL,
        includeExecutionData: true,
      },
    });
    acknowledgeExportWildcards(this.stateMachine, props);
    // Holds only this stack's schedule: nothing to keep once the stack is gone, and a retained
    // group (its name is fixed at synth) would make a retry after a failed create fail.
    const group = new ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    this.schedule = new Schedule(this, 'Daily', {
      scheduleGroup: group,
      schedule: props.schedule,
      description: 'Daily incremental export of the usage table to S3 for finance',
      target: new StepFunctionsStartExecution(this.stateMachine, {
        input: ScheduleTargetInput.fromObject({ scheduledTime: ContextAttribute.scheduledTime }),
      }),
    });
    this.failureAlarm = new Alarm(this, 'FailureAlarm', {
      alarmDescription:
        'A usage export failed, timed out or was aborted, or the schedule dropped its start: finance is missing a day. See docs/finance.md (re-running an export).',
      metric: new MathExpression({
        expression: 'failed + timedOut + aborted + dropped',
        usingMetrics: {
          failed: this.stateMachine.metricFailed(),
          timedOut: this.stateMachine.metricTimedOut(),
          aborted: this.stateMachine.metricAborted(),
          dropped: group.metricDropped(),
        },
        period: Duration.hours(1),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  private definition(props: ExportScheduleProps) {
    const window = Pass.jsonata(this, 'Window', {
      comment: 'The UTC day before the scheduled time',
      outputs: { from: windowEdge(1), to: windowEdge(0), day: windowEdge(1, ", '[Y0001]-[M01]-[D01]'") },
    });
    const start = CallAwsService.jsonPath(this, 'StartExport', {
      service: 'dynamodb',
      action: 'exportTableToPointInTime',
      iamAction: 'dynamodb:ExportTableToPointInTime',
      iamResources: [props.table.tableArn],
      parameters: {
        TableArn: props.table.tableArn,
        S3Bucket: props.bucket.bucketName,
        // Its day's folder: Athena projects the `day` partition from the key (usage-catalog.ts).
        'S3Prefix.$': `States.Format('${incrementalDayPrefix('{}')}', $.day)`,
        S3SseAlgorithm: 'KMS',
        S3SseKmsKeyId: props.encryptionKey.keyArn,
        ExportFormat: 'DYNAMODB_JSON',
        ExportType: 'INCREMENTAL_EXPORT',
        IncrementalExportSpecification: {
          'ExportFromTime.$': '$.from',
          'ExportToTime.$': '$.to',
          ExportViewType: 'NEW_IMAGE',
        },
        // A retried or redriven execution of the same day starts no second export.
        'ClientToken.$': "States.Format('usage-{}', $.to)",
      },
      additionalIamStatements: [
        new PolicyStatement({
          actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:PutObjectAcl'],
          resources: [props.bucket.arnForObjects(`${INCREMENTAL_PREFIX}/*`)],
        }),
        // The export writes objects under the key through S3 and reads the table through
        // DynamoDB: the key is usable through those two services only, never directly.
        new PolicyStatement({
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [props.encryptionKey.keyArn],
          conditions: {
            StringEquals: {
              'kms:ViaService': [
                `s3.${Stack.of(this).region}.amazonaws.com`,
                `dynamodb.${Stack.of(this).region}.amazonaws.com`,
              ],
            },
          },
        }),
      ],
      resultSelector: { 'exportArn.$': '$.ExportDescription.ExportArn' },
      resultPath: '$.export',
    });
    start.addRetry({
      errors: ['DynamoDb.LimitExceededException', 'DynamoDb.InternalServerErrorException'],
      interval: Duration.minutes(1),
      maxAttempts: 5,
      backoffRate: 2,
    });
    const describe = CallAwsService.jsonPath(this, 'DescribeExport', {
      service: 'dynamodb',
      action: 'describeExport',
      iamAction: 'dynamodb:DescribeExport',
      iamResources: [`${props.table.tableArn}/export/*`],
      parameters: { 'ExportArn.$': '$.export.exportArn' },
      resultSelector: { 'status.$': '$.ExportDescription.ExportStatus' },
      resultPath: '$.progress',
    });
    describe.addRetry({
      errors: ['States.TaskFailed'],
      interval: Duration.seconds(30),
      maxAttempts: 3,
      backoffRate: 2,
    });
    const wait = new Wait(this, 'WaitForExport', { time: WaitTime.duration(POLL_INTERVAL) });
    const done = new Choice(this, 'ExportDone?')
      .when(Condition.stringEquals('$.progress.status', 'COMPLETED'), new Succeed(this, 'Exported'))
      .when(
        Condition.stringEquals('$.progress.status', 'FAILED'),
        new Fail(this, 'ExportFailed', {
          error: 'UsageExportFailed',
          cause: 'DynamoDB reported the export FAILED: DescribeExport on the export ARN in this execution says why',
        }),
      )
      .otherwise(wait);
    return window.next(start).next(wait).next(describe).next(done);
  }
}
