import { Duration, Size } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import jsonata from 'jsonata';
import { usageQueries } from '../../lib/constructs/usage-queries.js';
import {
  actionsOf,
  build,
  flatten,
  logicalIdOf,
  REGION,
  resourcesOf,
  roleStatements,
  STACK_NAME,
  type Built,
  type Statement,
} from './support.js';
import { glueColumns, glueTable, resolvesColumnPath } from '../support/glue-table.js';
import { readsOnlyPartitionRange } from '../support/partition-predicate.js';

let built: Built;
let ids: { bucket: string; logs: string; key: string; table: string; machine: string };
beforeAll(() => {
  built = build();
  const exports = built.stack.usageExports;
  ids = {
    bucket: logicalIdOf(exports.bucket),
    logs: logicalIdOf(exports.accessLogBucket),
    key: logicalIdOf(built.stack.encryptionKey),
    table: logicalIdOf(built.stack.tables.get('usage').table),
    machine: logicalIdOf(exports.stateMachine),
  };
});

const resources = () => built.template.toJSON().Resources as Record<string, any>;
const ofType = (type: string) => Object.entries(resources()).filter(([, resource]) => resource.Type === type);

/** The state machine's ASL, with references written `<LogicalId>` / `<LogicalId.Attr>`. */
function definition(): any {
  const parts = resources()[ids.machine].Properties.DefinitionString['Fn::Join'][1] as unknown[];
  return JSON.parse(
    parts
      .map((part) =>
        typeof part === 'string'
          ? part
          : (part as any)['Fn::GetAtt']
            ? `<${(part as any)['Fn::GetAtt'].join('.')}>`
            : flatten(part),
      )
      .join(''),
  );
}

describe('the exports bucket', () => {
  test('is encrypted with the stack key, versioned, closed to the public and logged', () => {
    const bucket = resources()[ids.bucket];
    expect(bucket.DeletionPolicy).toBe('RetainExceptOnCreate');
    const props = bucket.Properties;
    expect(props.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      {
        BucketKeyEnabled: true,
        ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [ids.key, 'Arn'] } },
      },
    ]);
    expect(props.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: ids.logs }, LogFilePrefix: 'exports/' });
  });

  test('keeps exports seven years (Infrequent Access after 90 days) and Athena results 30 days', () => {
    const rules = resources()[ids.bucket].Properties.LifecycleConfiguration.Rules as any[];
    const rule = (id: string) => rules.find((candidate) => candidate.Id === id);
    for (const prefix of ['incremental', 'full']) {
      expect(rule(`expire-${prefix}-exports`)).toMatchObject({
        Prefix: `${prefix}/`,
        ExpirationInDays: 2557,
        Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 90 }],
        Status: 'Enabled',
      });
    }
    expect(rule('expire-athena-results')).toMatchObject({ Prefix: 'athena-results/', ExpirationInDays: 30 });
    expect(rule('housekeeping')).toMatchObject({
      NoncurrentVersionExpiration: { NoncurrentDays: 7 },
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
    });
  });

  test.each([
    ['exports', () => ids.bucket],
    ['access log', () => ids.logs],
  ])('the %s bucket policy refuses requests without TLS and below TLS 1.2', (_name, id) => {
    const policy = ofType('AWS::S3::BucketPolicy').find(([, resource]) => resource.Properties.Bucket.Ref === id())!;
    const denials = (policy[1].Properties.PolicyDocument.Statement as any[]).filter((s) => s.Effect === 'Deny');
    expect(denials).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
  });

  test('the access log bucket uses S3-managed keys (S3 delivers logs to no other) and expires logs after a year', () => {
    const props = resources()[ids.logs].Properties;
    expect(props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({
      SSEAlgorithm: 'AES256',
    });
    expect(props.PublicAccessBlockConfiguration.BlockPublicPolicy).toBe(true);
    expect(props.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Id: 'expire-logs', ExpirationInDays: 365 })]),
    );
  });

  test('retention props override the defaults', () => {
    const { stack, template } = build({
      usageExports: {
        exportRetention: Duration.days(60),
        athenaResultsRetention: Duration.days(7),
        accessLogRetention: Duration.days(90),
      },
    });
    const rules = template.toJSON().Resources[logicalIdOf(stack.usageExports.bucket)].Properties.LifecycleConfiguration
      .Rules as any[];
    // Shorter than the 90 days after which exports would move to Infrequent Access: no transition.
    expect(rules.find((rule) => rule.Id === 'expire-incremental-exports')).toMatchObject({ ExpirationInDays: 60 });
    expect(rules.find((rule) => rule.Id === 'expire-incremental-exports').Transitions).toBeUndefined();
    expect(rules.find((rule) => rule.Id === 'expire-athena-results')).toMatchObject({ ExpirationInDays: 7 });
  });
});

describe('the daily incremental export', () => {
  test('the usage table keeps point-in-time recovery on, which exports need', () => {
    const table = resources()[ids.table];
    expect(table.Properties.Replicas[0].PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
  });

  test('EventBridge Scheduler starts the state machine at 00:15 UTC with the scheduled time', () => {
    const [[, schedule]] = ofType('AWS::Scheduler::Schedule') as [[string, any]];
    expect(schedule.Properties.ScheduleExpression).toBe('cron(15 0 * * ? *)');
    expect(schedule.Properties.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(schedule.Properties.Target.Arn).toEqual({ Ref: ids.machine });
    expect(JSON.parse(schedule.Properties.Target.Input)).toEqual({ scheduledTime: '<aws.scheduler.scheduled-time>' });
    const role = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
    const starts = roleStatements(built.template, role).filter((s) => actionsOf(s).includes('states:StartExecution'));
    expect(starts.flatMap(resourcesOf)).toEqual([{ Ref: ids.machine }]);
  });

  test('the schedule is a prop', () => {
    const { template } = build({ usageExports: { schedule: ScheduleExpression.cron({ minute: '30', hour: '2' }) } });
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(30 2 * * ? *)' });
  });

  test('a Standard machine with logs and tracing starts an INCREMENTAL export of the usage table into the bucket', () => {
    const machine = resources()[ids.machine].Properties;
    expect(machine.StateMachineType).toBe('STANDARD');
    expect(machine.TracingConfiguration).toEqual({ Enabled: true });
    expect(machine.LoggingConfiguration.Level).toBe('ALL');
    const asl = definition();
    expect(asl.TimeoutSeconds).toBe(12 * 3600);
    const start = asl.States.StartExport;
    expect(start.Resource).toBe('arn:<AWS::Partition>:states:::aws-sdk:dynamodb:exportTableToPointInTime');
    expect(start.Parameters).toEqual({
      TableArn: `<${ids.table}.Arn>`,
      S3Bucket: `<${ids.bucket}>`,
      'S3Prefix.$': "States.Format('incremental/day={}', $.day)",
      S3SseAlgorithm: 'KMS',
      S3SseKmsKeyId: `<${ids.key}.Arn>`,
      ExportFormat: 'DYNAMODB_JSON',
      ExportType: 'INCREMENTAL_EXPORT',
      IncrementalExportSpecification: {
        'ExportFromTime.$': '$.from',
        'ExportToTime.$': '$.to',
        ExportViewType: 'NEW_IMAGE',
      },
      'ClientToken.$': "States.Format('usage-{}', $.to)",
    });
  });

  test('it follows the export to its end and fails when DynamoDB reports FAILED', () => {
    const states = definition().States;
    expect(states.StartExport.Next).toBe('WaitForExport');
    expect(states.WaitForExport).toMatchObject({ Type: 'Wait', Seconds: 300, Next: 'DescribeExport' });
    expect(states.DescribeExport.Resource).toBe('arn:<AWS::Partition>:states:::aws-sdk:dynamodb:describeExport');
    expect(states.DescribeExport.Parameters).toEqual({ 'ExportArn.$': '$.export.exportArn' });
    const choice = states[states.DescribeExport.Next];
    expect(choice.Default).toBe('WaitForExport');
    const next = (status: string) => choice.Choices.find((c: any) => c.StringEquals === status).Next;
    expect(states[next('COMPLETED')].Type).toBe('Succeed');
    expect(states[next('FAILED')]).toMatchObject({ Type: 'Fail', Error: 'UsageExportFailed' });
  });

  test.each([
    ['a scheduled run just after midnight', { scheduledTime: '2026-11-24T00:15:00Z' }, '2026-11-24T09:00:00.000Z'],
    ['a scheduled run late in the day', { scheduledTime: '2026-11-24T23:59:59Z' }, '2026-11-25T09:00:00.000Z'],
    ['a run started by hand', {}, '2026-11-24T08:30:00.000Z'],
  ])('the window is the UTC day before, and names its day folder: %s', async (_case, input, startTime) => {
    const window = definition().States.Window;
    expect(window.QueryLanguage).toBe('JSONata');
    const evaluate = async (template: string) =>
      jsonata(/^\{% (.*) %\}$/s.exec(template)![1]!).evaluate(
        {},
        { states: { input, context: { Execution: { StartTime: startTime } } } },
      );
    expect({
      from: await evaluate(window.Output.from),
      to: await evaluate(window.Output.to),
      day: await evaluate(window.Output.day),
    }).toEqual({
      from: '2026-11-23T00:00:00.000Z',
      to: '2026-11-24T00:00:00.000Z',
      day: '2026-11-23',
    });
  });

  test('the machine role may export only the usage table, write only under incremental/, and use the key', () => {
    const role = resources()[ids.machine].Properties.RoleArn['Fn::GetAtt'][0] as string;
    const statements = roleStatements(built.template, role);
    const on = (action: string) =>
      statements.filter((s: Statement) => actionsOf(s).includes(action)).flatMap((s) => resourcesOf(s).map(flatten));
    expect(on('dynamodb:ExportTableToPointInTime')).toEqual([JSON.stringify({ 'Fn::GetAtt': [ids.table, 'Arn'] })]);
    expect(
      on('dynamodb:DescribeExport').map((r) => r.replace(/\{"Fn::GetAtt":\["(\w+)","Arn"\]\}/, '<$1.Arn>')),
    ).toEqual([`<${ids.table}.Arn>/export/*`]);
    expect(on('s3:PutObject').map((r) => r.replace(/\{"Fn::GetAtt":\["(\w+)","Arn"\]\}/, '<$1.Arn>'))).toEqual([
      `<${ids.bucket}.Arn>/incremental/*`,
    ]);
    expect(on('kms:GenerateDataKey')).toEqual([JSON.stringify({ 'Fn::GetAtt': [ids.key, 'Arn'] })]);
    // The key through S3 and DynamoDB only.
    const kms = statements.find((s: Statement) => actionsOf(s).includes('kms:GenerateDataKey')) as Statement & {
      Condition?: Record<string, Record<string, unknown>>;
    };
    expect(kms.Condition).toEqual({
      StringEquals: { 'kms:ViaService': [`s3.${REGION}.amazonaws.com`, `dynamodb.${REGION}.amazonaws.com`] },
    });
    expect(statements.some((s) => actionsOf(s).some((a) => a === 's3:*' || a === 'dynamodb:*'))).toBe(false);
  });

  test("the export role's wildcards are the reviewed ones: the export's objects and ARN, X-Ray and log delivery", () => {
    const role = resources()[ids.machine].Properties.RoleArn['Fn::GetAtt'][0] as string;
    const statements = roleStatements(built.template, role);
    const anywhere = statements.filter((s) => resourcesOf(s).includes('*'));
    for (const statement of anywhere) {
      for (const action of actionsOf(statement))
        expect(action).toMatch(
          /^(xray:|logs:(\w+LogDelivery|ListLogDeliveries|PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$)/,
        );
    }
    const patterns = statements
      .flatMap((s) =>
        resourcesOf(s)
          .filter((r) => r !== '*')
          .map(flatten),
      )
      .filter((r) => r.includes('*'))
      .map((r) => r.replace(/\{"Fn::GetAtt":\["(\w+)","Arn"\]\}/, '<$1.Arn>'));
    expect(patterns.sort()).toEqual([`<${ids.bucket}.Arn>/incremental/*`, `<${ids.table}.Arn>/export/*`].sort());
    expect(statements.some((s) => actionsOf(s).some((a) => a.includes('*')))).toBe(false);
  });

  test('one alarm fires on a failed, timed-out or aborted export or a dropped schedule, and the construct exposes it', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    const id = logicalIdOf(built.stack.usageExports.failureAlarm);
    const alarm = alarms.find(([alarmId]) => alarmId === id)![1].Properties;
    expect(alarm).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const metrics = (alarm.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    const names = metrics.map((m) => `${m.Namespace} ${m.MetricName}`).sort();
    expect(names).toEqual(
      [
        'AWS/States ExecutionsAborted',
        'AWS/States ExecutionsFailed',
        'AWS/States ExecutionsTimedOut',
        'AWS/Scheduler InvocationDroppedCount',
      ].sort(),
    );
    for (const metric of metrics.filter((m) => m.Namespace === 'AWS/States')) {
      expect(metric.Dimensions).toEqual([{ Name: 'StateMachineArn', Value: { Ref: ids.machine } }]);
    }
    const expression = (alarm.Metrics as any[]).find((m) => m.Expression);
    expect(expression.Expression).toBe('failed + timedOut + aborted + dropped');
    expect(expression.ReturnData).not.toBe(false);
  });
});

describe('Glue and Athena', () => {
  test('a Glue database named after the stack, and three OpenX JSON SerDe tables over the export layout', () => {
    built.template.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: 'gateway_usage' } });
    const incremental = glueTable(built.template, 'usage_incremental');
    const legacy = glueTable(built.template, 'usage_incremental_legacy');
    for (const table of [incremental, legacy]) {
      expect(table.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
      expect(table.StorageDescriptor.Columns.map((c: { Name: string }) => c.Name)).toEqual([
        'metadata',
        'keys',
        'newimage',
      ]);
    }
    // Exports before the day folders stay readable where they are; nothing new lands there.
    expect(flatten(legacy.StorageDescriptor.Location)).toBe(`s3://<${ids.bucket}>/incremental/AWSDynamoDB/data/`);
    expect(legacy.PartitionKeys).toBeUndefined();
    const full = glueTable(built.template, 'usage_full');
    expect(full.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
    expect(glueColumns(built.template, 'usage_full').map((c) => c.Name)).toEqual(['item']);
    expect(full.PartitionKeys).toEqual([{ Name: 'export_id', Type: 'string' }]);
    expect(full.Parameters['projection.export_id.type']).toBe('injected');
    expect(flatten(full.Parameters['storage.location.template'])).toBe(
      `s3://<${ids.bucket}>/full/AWSDynamoDB/\${export_id}/data/`,
    );
    for (const table of [incremental, legacy, full]) expect(table.Parameters.has_encrypted_data).toBe('true');
  });

  test('usage_incremental is partitioned by the export day, projected from the day folders the machine writes', () => {
    const incremental = glueTable(built.template, 'usage_incremental');
    expect(incremental.PartitionKeys).toEqual([{ Name: 'day', Type: 'string' }]);
    const { 'storage.location.template': template, ...parameters } = incremental.Parameters;
    expect(parameters).toEqual({
      classification: 'json',
      has_encrypted_data: 'true',
      'projection.enabled': 'true',
      'projection.day.type': 'date',
      'projection.day.format': 'yyyy-MM-dd',
      'projection.day.range': '2025-01-01,NOW',
      'projection.day.interval': '1',
      'projection.day.interval.unit': 'DAYS',
    });
    expect(flatten(template)).toBe(`s3://<${ids.bucket}>/incremental/day=\${day}/AWSDynamoDB/data/`);
    expect(flatten(incremental.StorageDescriptor.Location)).toBe(`s3://<${ids.bucket}>/incremental/`);
    // The folder the machine names for a day is the one the template projects for it.
    const prefix = definition().States.StartExport.Parameters['S3Prefix.$'] as string;
    const folder = /^States\.Format\('(.*)', \$\.day\)$/.exec(prefix)![1]!.replace('{}', '2026-11-23');
    expect(flatten(template).replace('${day}', '2026-11-23')).toBe(`s3://<${ids.bucket}>/${folder}/AWSDynamoDB/data/`);
  });

  test('the workgroup encrypts results with the key, enforces its settings and cuts queries off at 10 GiB', () => {
    built.template.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: `${STACK_NAME}-usage`,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        ResultConfiguration: {
          EncryptionConfiguration: { EncryptionOption: 'SSE_KMS', KmsKey: { 'Fn::GetAtt': [ids.key, 'Arn'] } },
          OutputLocation: Match.anyValue(),
        },
      },
    });
    const [[, workGroup]] = ofType('AWS::Athena::WorkGroup') as [[string, any]];
    expect(flatten(workGroup.Properties.WorkGroupConfiguration.ResultConfiguration.OutputLocation)).toBe(
      `s3://<${ids.bucket}>/athena-results/`,
    );
    const { template } = build({ usageExports: { bytesScannedCutoffPerQuery: Size.gibibytes(1) } });
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: { BytesScannedCutoffPerQuery: 1024 ** 3 },
    });
  });

  test('three named queries, in the workgroup and database, reading only columns the Glue table declares', () => {
    const queries = ofType('AWS::Athena::NamedQuery').map(([, resource]) => resource.Properties);
    expect(queries.map((q) => q.Name).sort()).toEqual(
      ['cost-by-account-and-model-per-month', 'cost-by-route', 'tokens-and-units-by-key-per-day'].sort(),
    );
    const columns = glueColumns(built.template, 'usage_incremental');
    for (const query of queries) {
      expect(query.WorkGroup).toEqual({ Ref: logicalIdOf(built.stack.usageExports.catalog.workGroup) });
      expect(query.Database).toEqual({ Ref: logicalIdOf(built.stack.usageExports.catalog.database) });
      expect(query.QueryString).toContain('FROM "gateway_usage"."usage_incremental"');
      // Pruned to the caller's days: the two parameters bound the projected partition.
      expect([
        query.Name,
        readsOnlyPartitionRange(query.QueryString, '"gateway_usage"."usage_incremental"', 'day'),
      ]).toEqual([query.Name, true]);
      expect(query.QueryString.match(/\?/g)).toHaveLength(2);
      // `item` is the CTE's name for newimage.
      const paths = [...(query.QueryString as string).matchAll(/\b(newimage|item|metadata|keys)((?:\.\w+)+)/g)].map(
        ([, root, rest]) => `${root === 'item' ? 'newimage' : root}${rest}`,
      );
      expect(paths.length).toBeGreaterThan(5);
      for (const path of paths) expect([path, resolvesColumnPath(columns, path)]).toEqual([path, true]);
    }
  });

  test('the column check catches a query reading an attribute the table does not declare', () => {
    const columns = glueColumns(built.template, 'usage_incremental');
    expect(resolvesColumnPath(columns, 'newimage.costmicrousd.n')).toBe(true);
    expect(resolvesColumnPath(columns, 'newimage.costmicrousd.s')).toBe(false);
    expect(resolvesColumnPath(columns, 'newimage.invoice.s')).toBe(false);
    expect(usageQueries('db', 't')).toHaveLength(3);
  });

  test.each([
    ['no WHERE', 'SELECT * FROM t', false],
    ['a filter on other columns only', "SELECT * FROM t WHERE newimage.type.s = 'ledger'", false],
    ["the entry's own day, not the partition", 'SELECT * FROM t WHERE item.day.s BETWEEN ? AND ?', false],
    ['an OR that lets other days through', 'SELECT * FROM t WHERE day BETWEEN ? AND ? OR x = 1', false],
    [
      'a second read of the table without the range',
      'SELECT * FROM t WHERE day BETWEEN ? AND ? UNION SELECT * FROM t',
      false,
    ],
    ['the range in another block', 'SELECT * FROM (SELECT * FROM t) WHERE day BETWEEN ? AND ?', false],
    [
      'the range among other conjuncts',
      "SELECT * FROM (SELECT * FROM t WHERE x = 1 AND day BETWEEN '2026-01-01' AND '2026-01-31' AND (a OR b)) GROUP BY 1",
      true,
    ],
  ])('the partition check: %s', (_case, sql, pruned) => {
    expect(readsOnlyPartitionRange(sql, 't', 'day')).toBe(pruned);
  });

  test('the stack outputs what the export script and finance need', () => {
    for (const output of [
      'UsageTableArn',
      'UsageExportBucketName',
      'UsageExportKeyArn',
      'UsageGlueDatabase',
      'UsageAthenaWorkGroup',
      'UsageExportStateMachineArn',
    ]) {
      built.template.hasOutput(output, Match.anyValue());
    }
  });
});
