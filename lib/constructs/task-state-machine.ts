import { Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { EndpointAccess } from './endpoint-access.js';
import { EndpointFunction, type FunctionSource } from './endpoint-function.js';

/** A task function of a state machine (not an API route), with the statements its grants make. */
export function taskFunction(
  scope: Construct,
  name: string,
  source: FunctionSource,
  description: string,
  props: { access: EndpointAccess; environment?: Record<string, string>; retention: RetentionDays },
): EndpointFunction {
  return new EndpointFunction(scope, name, {
    route: source,
    description,
    statements: props.access.statements,
    environment: { ...props.environment, ...props.access.environment },
    acknowledgements: props.access.acknowledgements,
    logRetention: props.retention,
  });
}

/**
 * A Standard state machine (JSONPath) from a plain definition whose Task states invoke
 * `functions`: logs ALL events to its own log group and traces with X-Ray (cdk-nag SF1, SF2).
 */
export function taskStateMachine(
  scope: Construct,
  props: {
    definition: Record<string, unknown>;
    functions: readonly EndpointFunction[];
    retention: RetentionDays;
    comment: string;
  },
): StateMachine {
  const stateMachine = new StateMachine(scope, 'StateMachine', {
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromString(Stack.of(scope).toJsonString(props.definition)),
    logs: { destination: new LogGroup(scope, 'Logs', { retention: props.retention }), level: LogLevel.ALL },
    tracingEnabled: true,
    comment: props.comment,
  });
  // The definition names the functions unqualified, so exactly these ARNs (no `:*` versions).
  stateMachine.addToRolePolicy(
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: props.functions.map((task) => task.fn.functionArn),
    }),
  );
  const defaultPolicy = stateMachine.role.node.tryFindChild('DefaultPolicy');
  if (defaultPolicy) {
    Validations.of(defaultPolicy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions logging to CloudWatch Logs (logs:CreateLogDelivery and the other vended-log delivery ' +
        'actions) and X-Ray trace writes do not support resource-level permissions; "*" is the only valid value.',
    });
  }
  return stateMachine;
}
