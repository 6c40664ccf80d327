import { ENV } from '../../lambdas/config/environment.js';
import {
  AGGREGATOR_MAPPING,
  ITERATOR_AGE_ALARM_MS,
  REDRIVE_MAX_RECEIVES,
  RETRY_AGE_ALARM_SECONDS,
} from '../../lib/constructs/usage-pipeline.js';
import {
  actionsOf,
  build,
  logicalIdOf,
  manifestRoutes,
  resourcesOf,
  roleLogicalId,
  roleStatements,
  syntheticRoute,
  type Built,
  type Statement,
} from './support.js';

// The usage pipeline in the template: the usage table's stream, the aggregator and its mapping,
// the retry queue, its redrive and dead-letter queue, the alarms, and what each role may do.

const APPEND_ROUTE = syntheticRoute({ id: 'append-only', path: '/test/append', grants: ['usage:append'] });

describe('usage pipeline', () => {
  let built: Built;
  let resources: Record<string, { Type: string; Properties: Record<string, any> }>;
  beforeAll(() => {
    built = build({ routes: [...manifestRoutes, APPEND_ROUTE] });
    resources = built.template.toJSON().Resources;
  });
  const pipeline = () => built.stack.usagePipeline;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const tableId = () => logicalIdOf(built.stack.tables.get('usage').table);
  const keyArn = () => ({ 'Fn::GetAtt': [logicalIdOf(built.stack.encryptionKey), 'Arn'] });

  test('the usage table streams new images; no other table streams', () => {
    for (const { schema, table } of built.stack.tables.all) {
      const spec = resources[logicalIdOf(table)]!.Properties.StreamSpecification;
      expect([schema.name, spec]).toEqual([
        schema.name,
        schema.name === 'usage' ? { StreamViewType: 'NEW_IMAGE' } : undefined,
      ]);
    }
  });

  test('the aggregator reads the stream: one batch per shard at a time, failures reported, halved, retried, then the failure queue', () => {
    const [mapping] = ofType('AWS::Lambda::EventSourceMapping').filter(([, resource]) =>
      JSON.stringify(resource.Properties.EventSourceArn).includes('StreamArn'),
    );
    expect(mapping).toBeDefined();
    const properties = mapping![1].Properties;
    expect(properties).toMatchObject({
      FunctionName: { Ref: logicalIdOf(pipeline().aggregator.fn) },
      EventSourceArn: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: AGGREGATOR_MAPPING.batchSize,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: AGGREGATOR_MAPPING.retryAttempts,
      ParallelizationFactor: 1,
      // The window is what makes Lambda name the shard in the event, which the checkpoints are keyed by.
      TumblingWindowInSeconds: AGGREGATOR_MAPPING.tumblingWindow.toSeconds(),
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(pipeline().aggregatorFailures), 'Arn'] } },
      },
    });
    expect(properties.TumblingWindowInSeconds).toBeGreaterThan(0);
    // Only inserts of ledger entries invoke it, so its own writes never do.
    expect(properties.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['ledger'] } } } },
    ]);
  });

  test('the retry queue is read by the redrive with partial failures, and moves a message failing 10 times to its dead-letter queue', () => {
    const [mapping] = ofType('AWS::Lambda::EventSourceMapping').filter(([, resource]) =>
      JSON.stringify(resource.Properties.EventSourceArn).includes(logicalIdOf(pipeline().retryQueue)),
    );
    expect(mapping![1].Properties).toMatchObject({
      FunctionName: { Ref: logicalIdOf(pipeline().redrive.fn) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[logicalIdOf(pipeline().retryQueue)]!.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(pipeline().retryDeadLetters), 'Arn'] },
      maxReceiveCount: REDRIVE_MAX_RECEIVES,
    });
  });

  test('every queue is encrypted with the stack key and refuses plain HTTP', () => {
    const { budgetNotices } = built.stack;
    const queues = [
      pipeline().retryQueue,
      pipeline().retryDeadLetters,
      pipeline().aggregatorFailures,
      budgetNotices.queue,
      budgetNotices.deadLetters,
    ];
    expect(
      ofType('AWS::SQS::Queue')
        .map(([id]) => id)
        .sort(),
    ).toEqual(queues.map((q) => logicalIdOf(q)).sort());
    for (const queue of queues) {
      expect(resources[logicalIdOf(queue)]!.Properties.KmsMasterKeyId).toEqual(keyArn());
    }
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, resource]) => JSON.stringify(resource.Properties));
    for (const queue of queues) {
      const policy = policies.find((p) => p.includes(`"${logicalIdOf(queue)}"`));
      expect(policy).toContain('"aws:SecureTransport":"false"');
    }
  });

  test('alarms on the retry queue age, the dead letters, the failure queue and the stream lag notify the topic', () => {
    const topic = { Ref: logicalIdOf(built.stack.monitoring.topic) };
    const alarms = pipeline().alarms.map((alarm) => resources[logicalIdOf(alarm)]!.Properties);
    expect(alarms.map((alarm) => [alarm.MetricName, alarm.Threshold])).toEqual([
      ['ApproximateAgeOfOldestMessage', RETRY_AGE_ALARM_SECONDS],
      ['ApproximateNumberOfMessagesVisible', 1],
      ['ApproximateNumberOfMessagesVisible', 1],
      ['IteratorAge', ITERATOR_AGE_ALARM_MS],
    ]);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([topic]);
  });

  /** A role's DynamoDB statements on the usage table, as [actions, LeadingKeys patterns]. */
  const tableGrants = (statements: Statement[]) =>
    statements
      .filter((s) =>
        resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify({ 'Fn::GetAtt': [tableId(), 'Arn'] })),
      )
      .map((s) => [
        actionsOf(s).sort(),
        (s.Condition as Record<string, Record<string, string[]>> | undefined)?.['ForAllValues:StringLike']?.[
          'dynamodb:LeadingKeys'
        ],
      ]);
  const servicesOf = (statements: Statement[]) =>
    [...new Set(statements.flatMap(actionsOf).map((action) => action.split(':')[0]))].sort();

  test('the aggregator may read and update totals and checkpoints, and read the stream: nothing of the ledger', () => {
    const statements = roleStatements(built.template, logicalIdOf(pipeline().aggregator.role));
    expect(tableGrants(statements)).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        ['ACCOUNT#*#TOTALS', 'AGGREGATOR'],
      ],
    ]);
    const onStream = statements.filter((s) => JSON.stringify(s.Resource).includes('StreamArn'));
    expect(onStream.flatMap(actionsOf).sort()).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
    expect(servicesOf(statements)).toEqual(['dynamodb', 'kms', 'logs', 'sqs', 'xray']);
    expect(statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')))).toEqual([
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [logicalIdOf(pipeline().aggregatorFailures), 'Arn'] },
      }),
    ]);
  });

  test('the redrive may only insert ledger entries (PartiQL INSERT, which never replaces an item), and consume the retry queue', () => {
    const statements = roleStatements(built.template, logicalIdOf(pipeline().redrive.role));
    expect(tableGrants(statements)).toEqual([[['dynamodb:PartiQLInsert'], ['ACCOUNT#*#L*']]]);
    expect(servicesOf(statements)).toEqual(['dynamodb', 'kms', 'logs', 'sqs', 'xray']);
  });

  test('usage:append: PartiQL INSERT on ledger shards only, SendMessage to the retry queue only, and its URL', () => {
    const statements = roleStatements(built.template, roleLogicalId(built.stack, APPEND_ROUTE.id));
    expect(tableGrants(statements)).toEqual([[['dynamodb:PartiQLInsert'], ['ACCOUNT#*#L*']]]);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.map((s) => [actionsOf(s), resourcesOf(s)])).toEqual([
      [['sqs:SendMessage'], [{ 'Fn::GetAtt': [logicalIdOf(pipeline().retryQueue), 'Arn'] }]],
    ]);
    const fn = resources[logicalIdOf(built.stack.endpoints.get(APPEND_ROUTE.id)!.fn)]!;
    expect(fn.Properties.Environment.Variables[ENV.usageRetryQueueUrl]).toEqual({
      Ref: logicalIdOf(pipeline().retryQueue),
    });
  });

  test('the queues are outputs, for the operator', () => {
    for (const name of ['UsageRetryQueueUrl', 'UsageRetryDeadLetterQueueUrl', 'UsageAggregatorFailureQueueUrl'])
      built.template.hasOutput(name, {});
  });
});
