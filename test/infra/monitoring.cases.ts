import { Duration, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { DefinitionBody, LogLevel, Pass, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { retainedLogGroup } from '../../lib/constructs/retained-log-group.js';
import { parseAlarmEmail } from '../../lib/context.js';
import { actionsOf, build, logicalIdOf, manifestRoutes, roleStatements } from './support.js';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

function alarmsOf(resources: Resources) {
  return Object.values(resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
}

describe('monitoring', () => {
  const { stack, template } = build({ routes: manifestRoutes });
  const resources = template.toJSON().Resources as Resources;
  const topicId = logicalIdOf(stack.monitoring.topic);

  test('every log group has a retention; every function logs to one of them and traces with X-Ray', () => {
    const groups = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Logs::LogGroup');
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
    const groupIds = new Set(groups.map(([id]) => id));
    const functions = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(groupIds.has(fn.Properties.LoggingConfig.LogGroup.Ref)).toBe(true);
    }
  });

  test("the routes' functions share one log group (a resource each would crowd the stack); the tasks keep their own", () => {
    const groupOf = (id: string) => resources[id]!.Properties.LoggingConfig.LogGroup.Ref as string;
    const routeGroups = new Set([...stack.endpoints.values()].map((endpoint) => groupOf(logicalIdOf(endpoint.fn))));
    expect(routeGroups.size).toBe(1);
    const [shared] = routeGroups;
    for (const endpoint of stack.endpoints.values()) {
      // Each role may write to that group, and to no other.
      const logStatements = roleStatements(template, logicalIdOf(endpoint.role)).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('logs:')),
      );
      expect(logStatements).toEqual([
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [shared, 'Arn'] },
        }),
      ]);
    }
    const others = Object.entries(resources).filter(
      ([id, resource]) =>
        resource.Type === 'AWS::Lambda::Function' &&
        ![...stack.endpoints.values()].some((endpoint) => logicalIdOf(endpoint.fn) === id),
    );
    expect(others.length).toBeGreaterThan(0);
    for (const [id] of others) expect(groupOf(id)).not.toBe(shared);
  });

  test('the alarm topic is KMS-encrypted and refuses plain HTTP; CloudWatch may use the key', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: Match.arrayWith(['kms:Decrypt', 'kms:GenerateDataKey*']),
            // Only this account's alarms: no confused deputy.
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
            },
          }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  test('alarms: API 5xx rate, p99 latency, upstream error rate per provider, failures of every function; all notify the topic', () => {
    const alarms = alarmsOf(resources);
    const descriptions = alarms.map((alarm) => alarm.Properties.AlarmDescription as string);
    expect(descriptions).toEqual(
      expect.arrayContaining([
        'AI gateway: API Gateway 5xx rate (%)',
        'AI gateway: p99 time to response (ms), all routes',
        ...['openai', 'anthropic', 'google', 'xai', 'openrouter', 'exa'].map(
          (provider) => `AI gateway: ${provider} upstream error rate (%)`,
        ),
      ]),
    );
    // Every route's function is watched by one failure alarm, five functions to an alarm.
    const failures = descriptions.filter((description) => description.includes('a function failed'));
    for (const route of manifestRoutes)
      expect([route.id, failures.filter((d) => d.split(': ').at(-1)!.split(', ').includes(route.id))]).toEqual([
        route.id,
        [expect.any(String)],
      ]);
    expect(failures).toHaveLength(Math.ceil(manifestRoutes.length / 5));
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);

    // The upstream rate reads the functions' EMF metrics under the names and dimensions they
    // emit: the namespace and service the stack gives the chat function.
    const chat = Object.values(resources).find(
      (r: any) =>
        r.Type === 'AWS::Lambda::Function' && / \/api\/v1\/chat\/completions$/.test(r.Properties.Description ?? ''),
    ) as any;
    const emitted = chat.Properties.Environment.Variables;
    const openai = alarms.find((alarm) => alarm.Properties.AlarmDescription.includes('openai'))!;
    const metrics = (openai.Properties.Metrics as any[]).filter((query) => query.MetricStat);
    expect(metrics.map((query) => query.MetricStat.Metric)).toEqual(
      expect.arrayContaining([
        {
          Namespace: emitted.POWERTOOLS_METRICS_NAMESPACE,
          MetricName: 'gateway.upstream.errors',
          Dimensions: expect.arrayContaining([
            { Name: 'gen_ai.provider.name', Value: 'openai' },
            { Name: 'service', Value: emitted.POWERTOOLS_SERVICE_NAME },
          ]),
        },
      ]),
    );
  });

  test('alarms the 5xx rate cannot see: failed streams, unrecorded usage, table throttles, account concurrency, throttled job transitions', () => {
    const alarms = alarmsOf(resources);
    const byDescription = (text: string) => alarms.filter((alarm) => alarm.Properties.AlarmDescription.includes(text));
    const [streams] = byDescription('streams that ended in a server error frame');
    expect(streams!.Properties).toMatchObject({
      MetricName: 'gateway.streams.failed',
      Statistic: 'Sum',
      Threshold: 10,
    });
    const [unrecorded] = byDescription('usage entries neither the ledger nor the retry queue took');
    expect(unrecorded!.Properties).toMatchObject({ MetricName: 'gateway.usage.not_recorded', Threshold: 1 });
    // Under the namespace the functions emit to.
    const chat = Object.values(resources).find(
      (r: any) =>
        r.Type === 'AWS::Lambda::Function' && / \/api\/v1\/chat\/completions$/.test(r.Properties.Description ?? ''),
    ) as any;
    const namespace = chat.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE;
    expect([streams, unrecorded].map((alarm) => alarm!.Properties.Namespace)).toEqual([namespace, namespace]);
    // One alarm over every table's throttled reads and writes.
    const throttledTables = byDescription('tables throttled');
    expect(throttledTables).toHaveLength(1);
    const tableMetrics = (throttledTables[0]!.Properties.Metrics as any[]).filter((query) => query.MetricStat);
    expect(tableMetrics.length).toBeLessThanOrEqual(10);
    for (const table of ['identity', 'usage', 'cache', 'jobs']) {
      const dimensions = [{ Name: 'TableName', Value: { Ref: logicalIdOf(stack.tables.get(table as never).table) } }];
      const ofTable = tableMetrics.filter(
        (query) => JSON.stringify(query.MetricStat.Metric.Dimensions) === JSON.stringify(dimensions),
      );
      expect([table, ofTable.map((query) => query.MetricStat.Metric.MetricName).sort()]).toEqual([
        table,
        ['ReadThrottleEvents', 'WriteThrottleEvents'],
      ]);
    }
    expect(throttledTables[0]!.Properties.Threshold).toBe(50);
    const [concurrency] = byDescription('Lambda concurrency at 80%');
    expect(concurrency!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Statistic: 'Maximum',
      Threshold: 800,
    });
    const [auth] = byDescription('calls answered 401');
    expect(auth!.Properties).toMatchObject({ MetricName: 'gateway.requests.unauthorized', Threshold: 500 });
    const [chatFailed] = byDescription('chat-completions');
    const failedMetrics = (chatFailed!.Properties.Metrics as any[]).filter((query) => query.MetricStat);
    expect(failedMetrics.length).toBeLessThanOrEqual(10);
    expect(new Set(failedMetrics.map((query) => query.MetricStat.Metric.MetricName))).toEqual(
      new Set(['Errors', 'Throttles']),
    );
    const [transitions] = byDescription(
      'JobPoller: failed job executions or Step Functions throttled state transitions',
    );
    const machineMetrics = (transitions!.Properties.Metrics as any[]).filter((query) => query.MetricStat);
    expect(machineMetrics.map((query) => query.MetricStat.Metric.MetricName).sort()).toEqual([
      'ExecutionThrottled',
      'ExecutionsAborted',
      'ExecutionsFailed',
      'ExecutionsTimedOut',
    ]);
  });

  test('without alarmEmail, synth warns that the alarm topic has no subscriber', () => {
    const warnings = (built: ReturnType<typeof build>) =>
      built.template && Annotations.fromStack(built.stack).findWarning('*', Match.stringLikeRegexp('no subscriber'));
    const keep = { keepSubscriberWarning: true };
    expect(warnings(build({ routes: manifestRoutes }, keep))).toHaveLength(1);
    expect(warnings(build({ routes: manifestRoutes, alarmEmail: 'ops@example.com' }, keep))).toHaveLength(0);
  });

  test('a dashboard shows the main figures and every alarm', () => {
    const dashboards = Object.values(resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
    for (const figure of [
      '5xx',
      'Latency',
      'Upstream error rate',
      'Tokens',
      'Cost',
      'time to first chunk',
      'Throttles',
      'Media jobs',
      'Alarms',
    ]) {
      expect(body).toContain(figure);
    }
    expect(body).toContain('gen_ai.client.token.usage');
    expect(body).toContain('gateway.jobs.ended');
  });

  test('alarmEmail subscribes an address; a malformed one is refused', () => {
    const withEmail = build({ routes: manifestRoutes, alarmEmail: 'ops@example.com' }).template;
    withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    expect(parseAlarmEmail(' ops@example.com ')).toBe('ops@example.com');
    expect(() => parseAlarmEmail('ops@example')).toThrow(/alarmEmail/);
    expect(() => parseAlarmEmail('a@b.c,d@e.f')).toThrow(/alarmEmail/);
  });

  test('state machines and alarms made elsewhere attach to the topic, and cdk-nag stays clean', () => {
    const attached = build(
      { routes: manifestRoutes },
      {
        mutate: (gateway) => {
          const machine = new StateMachine(gateway, 'Jobs', {
            definitionBody: DefinitionBody.fromChainable(new Pass(gateway, 'Done')),
            tracingEnabled: true,
            logs: { destination: retainedLogGroup(gateway, 'JobLogs'), level: LogLevel.ALL },
          });
          Validations.of(machine).acknowledge({
            id: 'AwsSolutions-IAM5[Resource::*]',
            reason: 'test fixture: X-Ray and log delivery',
          });
          gateway.monitoring.monitorStateMachine('video-jobs', machine);
          const exportAlarm = new Alarm(gateway, 'ExportFailed', {
            metric: new Metric({ namespace: 'Test', metricName: 'ExportFailures', period: Duration.hours(1) }),
            threshold: 1,
            evaluationPeriods: 1,
          });
          gateway.monitoring.monitorAlarm(exportAlarm);
        },
      },
    );
    const alarms = alarmsOf(attached.template.toJSON().Resources as Resources);
    const topic = { Ref: logicalIdOf(attached.stack.monitoring.topic) };
    const jobs = alarms.find(
      (alarm) =>
        alarm.Properties.AlarmDescription ===
        'AI gateway: video-jobs: failed job executions or Step Functions throttled state transitions',
    );
    expect(jobs?.Properties.AlarmActions).toEqual([topic]);
    const exported = alarms.find((alarm) => alarm.Properties.MetricName === 'ExportFailures');
    expect(exported?.Properties.AlarmActions).toEqual([topic]);
    expect(new AwsSolutionsChecks().validateScope(attached.stack).violations).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});
