import { ENV } from '../../lambdas/config/environment.js';
import { BUDGET_WEBHOOK_ATTEMPTS } from '../../lambdas/jobs/budget-webhook-step.js';
import { BUDGET_WEBHOOK_FUNCTION } from '../../lib/constructs/budget-webhooks.js';
import {
  actionsOf,
  build,
  logicalIdOf,
  manifestRoutes,
  resourcesOf,
  roleLogicalId,
  roleStatements,
  syntheticRoute,
  WEBHOOK_SECRETS_ARN,
  flatten,
  type Built,
  type Statement,
} from './support.js';

// The budget webhooks in the template: the notice queue, its consumer and dead-letter queue
// with its alarm, and who may send to the queue (whoever settles budgets) and nothing more.

const RESERVE_ROUTE = syntheticRoute({ id: 'reserve-only', path: '/test/reserve', grants: ['budgets:reserve'] });

describe('budget notices', () => {
  let built: Built;
  let resources: Record<string, { Type: string; Properties: Record<string, any> }>;
  beforeAll(() => {
    built = build({ routes: [...manifestRoutes, RESERVE_ROUTE] });
    resources = built.template.toJSON().Resources;
  });
  const notices = () => built.stack.budgetNotices;
  const queueArn = () => ({ 'Fn::GetAtt': [logicalIdOf(notices().queue), 'Arn'] });
  const sqsStatements = (statements: Statement[]) =>
    statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));

  test(`the consumer reads the queue with partial failures; a message failing ${BUDGET_WEBHOOK_ATTEMPTS} times goes to the dead letters`, () => {
    const mappings = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' &&
        JSON.stringify(resource.Properties.EventSourceArn) === JSON.stringify(queueArn()),
    );
    expect(mappings.map((mapping) => mapping.Properties)).toEqual([
      expect.objectContaining({
        FunctionName: { Ref: logicalIdOf(notices().consumer!.fn) },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 10,
      }),
    ]);
    expect(resources[logicalIdOf(notices().queue)]!.Properties).toMatchObject({
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(notices().deadLetters), 'Arn'] },
        maxReceiveCount: BUDGET_WEBHOOK_ATTEMPTS,
      },
      VisibilityTimeout: 6 * BUDGET_WEBHOOK_FUNCTION.timeoutSeconds,
    });
  });

  test('an alarm on the dead letters notifies the topic', () => {
    const alarms = notices().alarms.map((alarm) => resources[logicalIdOf(alarm)]!.Properties);
    expect(alarms).toEqual([
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalIdOf(notices().deadLetters), 'QueueName'] } }],
        AlarmActions: [{ Ref: logicalIdOf(built.stack.monitoring.topic) }],
      }),
    ]);
    built.template.hasOutput('BudgetNoticeDeadLetterQueueUrl', {});
  });

  test('the consumer consumes its queue, reads and makes webhook secrets, and nothing else', () => {
    const statements = roleStatements(built.template, logicalIdOf(notices().consumer!.role));
    const services = [...new Set(statements.flatMap(actionsOf).map((action) => action.split(':')[0]))].sort();
    expect(services).toEqual(['kms', 'logs', 'secretsmanager', 'sqs', 'xray']);
    expect(sqsStatements(statements).map((s) => [actionsOf(s).sort(), resourcesOf(s)])).toEqual([
      [
        ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
        [queueArn()],
      ],
    ]);
    const onSecrets = statements.filter((s) => resourcesOf(s).some((r) => flatten(r) === WEBHOOK_SECRETS_ARN));
    expect(onSecrets.flatMap(actionsOf).sort()).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:TagResource',
    ]);
    const fn = resources[logicalIdOf(notices().consumer!.fn)]!;
    expect(fn.Properties.Environment.Variables[ENV.budgetNoticeQueueUrl]).toEqual({
      Ref: logicalIdOf(notices().queue),
    });
    expect(fn.Properties.Environment.Variables).not.toHaveProperty(ENV.localWebhookReceivers);
  });

  test('budgets:reserve sends to the notice queue only, and is told its URL', () => {
    const statements = roleStatements(built.template, roleLogicalId(built.stack, RESERVE_ROUTE.id));
    expect(sqsStatements(statements).map((s) => [actionsOf(s), resourcesOf(s)])).toEqual([
      [['sqs:SendMessage'], [queueArn()]],
    ]);
    const fn = resources[logicalIdOf(built.stack.endpoints.get(RESERVE_ROUTE.id)!.fn)]!;
    expect(fn.Properties.Environment.Variables[ENV.budgetNoticeQueueUrl]).toEqual({
      Ref: logicalIdOf(notices().queue),
    });
  });

  test('every function that settles budgets may send notices: the routes with budgets:reserve, the job tasks, the session runner', () => {
    const senders = [
      ...manifestRoutes
        .filter((route) => route.grants.includes('budgets:reserve'))
        .map((route) => roleLogicalId(built.stack, route.id)),
      logicalIdOf(built.stack.jobPoller.poll.role),
      logicalIdOf(built.stack.jobPoller.markFailed.role),
      logicalIdOf(built.stack.sessionRunner.run.role),
    ];
    expect(senders.length).toBeGreaterThan(5);
    for (const roleId of senders) {
      const sends = sqsStatements(roleStatements(built.template, roleId)).filter((s) =>
        resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(queueArn())),
      );
      expect([roleId, sends.flatMap(actionsOf)]).toEqual([roleId, ['sqs:SendMessage']]);
    }
    // The Notify task settles no budget: it may not send.
    const notify = sqsStatements(roleStatements(built.template, logicalIdOf(built.stack.jobPoller.notify.role)));
    expect(notify).toEqual([]);
  });
});
