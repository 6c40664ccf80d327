import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../lambdas/config/environment.js';
import { BUDGET_WEBHOOK_ATTEMPTS } from '../../lambdas/jobs/budget-webhook-step.js';
import type { EndpointAccess } from './endpoint-access.js';
import { EndpointFunction, type FunctionSource } from './endpoint-function.js';

/** The consumer: not an API route, so its spec lives here. */
export const BUDGET_WEBHOOK_FUNCTION = {
  entry: 'lambdas/jobs/budget-webhook-consumer.ts',
  memoryMb: 256,
  // Ten events of a batch are posted at once, each within webhook-delivery.ts's 10 s.
  timeoutSeconds: 30,
} as const satisfies FunctionSource;

/** What the consumer needs besides its queue: the accounts' webhook secrets, made at an account's first event. */
export const BUDGET_WEBHOOK_GRANTS = ['webhookSecrets:read', 'webhookSecrets:create'] as const;

const RETENTION = Duration.days(14);

export interface BudgetNoticesProps {
  readonly encryptionKey: IKey;
  readonly logRetention?: RetentionDays;
  /** Environment every function of the stack gets. @default {} */
  readonly environment?: Record<string, string>;
}

/**
 * The budget webhooks off the request path (docs/deployment.md, "Budgets"): the queue whoever
 * announces a budget's threshold crossing sends the event to (`budgets:reserve` grants
 * SendMessage on it and nothing else), the consumer that POSTs each event to its account's
 * budget webhook (lambdas/jobs/budget-webhook-consumer.ts), a failed attempt hidden for a
 * doubling backoff, and after BUDGET_WEBHOOK_ATTEMPTS receives the dead-letter queue, whose
 * alarm (attached to the operator's topic by the stack) says events were not delivered.
 * Queues are encrypted with the stack key and refuse plain HTTP.
 */
export class BudgetNotices extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly alarms: Alarm[] = [];
  /** Made by `consume`, once the stack's grants can be built. */
  consumer?: EndpointFunction;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: BudgetNoticesProps,
  ) {
    super(scope, id);
    const common = {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      retentionPeriod: RETENTION,
    };
    this.deadLetters = new Queue(this, 'DeadLetters', common);
    this.queue = new Queue(this, 'Queue', {
      ...common,
      // Six times the consumer's timeout, as Lambda advises for a queue it reads; a failed
      // attempt sets its own, shorter or longer, backoff.
      visibilityTimeout: Duration.seconds(6 * BUDGET_WEBHOOK_FUNCTION.timeoutSeconds),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: BUDGET_WEBHOOK_ATTEMPTS },
    });
    this.alarms.push(
      new Alarm(this, 'DeadLettersAlarm', {
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: 1,
        alarmDescription: `AI gateway: budget webhook events not delivered after ${BUDGET_WEBHOOK_ATTEMPTS} attempts (budget notice dead-letter queue)`,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** The consumer, with `access` (BUDGET_WEBHOOK_GRANTS) and its own queue's actions. */
  consume(access: EndpointAccess): EndpointFunction {
    const { encryptionKey } = this.props;
    const viaSqs = { StringEquals: { 'kms:ViaService': `sqs.${Stack.of(this).region}.amazonaws.com` } };
    const consumer = new EndpointFunction(this, 'Consumer', {
      route: BUDGET_WEBHOOK_FUNCTION,
      description: "AI gateway budget webhooks: posts budget threshold crossings to the account's webhook",
      logRetention: this.props.logRetention,
      environment: {
        ...this.props.environment,
        ...access.environment,
        [ENV.budgetNoticeQueueUrl]: this.queue.queueUrl,
      },
      acknowledgements: access.acknowledgements,
      statements: [
        ...access.statements,
        new PolicyStatement({
          actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
          resources: [this.queue.queueArn],
        }),
        new PolicyStatement({ actions: ['kms:Decrypt'], resources: [encryptionKey.keyArn], conditions: viaSqs }),
      ],
    });
    new EventSourceMapping(this, 'ConsumerQueue', {
      target: consumer.fn,
      eventSourceArn: this.queue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });
    this.consumer = consumer;
    return consumer;
  }
}
