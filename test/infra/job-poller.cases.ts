import { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_JOB_EXECUTION_TIMEOUT } from '../../lib/constructs/job-poller.js';
import { jobPollerDefinition } from '../../lib/constructs/job-poller-definition.js';
import { synthesizedJobPoller } from '../support/synthesized-job-poller.js';
import { build, flatten, roleStatements, syntheticRoute, type Built } from './support.js';

/** The job poller as deployed: the same ASL the local runtime runs, Standard, logged and traced. */
let built: Built;
beforeAll(() => {
  built = build({ routes: [syntheticRoute({ id: 'submit', path: '/submit', grants: ['jobs:start', 'jobs:write'] })] });
});

test('the synthesized definition is exactly jobPollerDefinition with the task functions ARNs', () => {
  const synthesized = synthesizedJobPoller();
  expect(synthesized.definition).toEqual(
    jobPollerDefinition(
      { poll: synthesized.pollArn, markFailed: synthesized.markFailedArn, notify: synthesized.notifyArn },
      { timeoutSeconds: DEFAULT_JOB_EXECUTION_TIMEOUT.toSeconds() },
    ),
  );
});

test('a Standard machine, logging ALL events to its own log group, with X-Ray tracing', () => {
  const template: Template = built.template;
  const machine =
    template.toJSON().Resources[
      built.stack.getLogicalId(built.stack.jobPoller.stateMachine.node.defaultChild as never)
    ];
  expect(machine!['Properties']).toMatchObject({
    StateMachineType: 'STANDARD',
    TracingConfiguration: { Enabled: true },
    LoggingConfiguration: { Level: 'ALL' },
  });
});

test('the machine may invoke exactly its three task functions, no versions or aliases', () => {
  const policyId = built.stack.getLogicalId(
    built.stack.jobPoller.stateMachine.role.node.findChild('DefaultPolicy').node.defaultChild as never,
  );
  const statements = built.template.toJSON().Resources[policyId].Properties.PolicyDocument.Statement as {
    Action: string | string[];
    Resource: unknown;
  }[];
  const invoke = statements.filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'));
  expect(invoke).toHaveLength(1);
  expect(
    [invoke[0]!.Resource]
      .flat()
      .map((r) => JSON.stringify(r))
      .sort(),
  ).toEqual(
    [built.stack.jobPoller.poll.fn, built.stack.jobPoller.markFailed.fn, built.stack.jobPoller.notify.fn]
      .map((fn) => JSON.stringify({ 'Fn::GetAtt': [built.stack.getLogicalId(fn.node.defaultChild as never), 'Arn'] }))
      .sort(),
  );
});

test('a route with jobs:start may start executions of the poller only, and is told its ARN', () => {
  const endpoint = built.stack.endpoints.get('submit')!;
  const roleId = built.stack.getLogicalId(endpoint.role.node.defaultChild as never);
  const machineArn = { Ref: built.stack.getLogicalId(built.stack.jobPoller.stateMachine.node.defaultChild as never) };
  const states = roleStatements(built.template, roleId).filter((s) =>
    [s.Action].flat().some((a) => String(a).startsWith('states:')),
  );
  expect(states.map((s) => [[s.Action].flat(), [s.Resource].flat().map(flatten)])).toEqual([
    [['states:StartExecution'], [flatten(machineArn)]],
  ]);
  const fn = Object.values(built.template.findResources('AWS::Lambda::Function')).find(
    (f) => f['Properties']['Role']['Fn::GetAtt'][0] === roleId,
  );
  expect(fn!['Properties']['Environment']['Variables']['JOB_STATE_MACHINE_ARN']).toEqual(machineArn);
});

test('the task functions may read and write job records and the ledger, and read the platform keys', () => {
  const roleId = built.stack.getLogicalId(built.stack.jobPoller.poll.role.node.defaultChild as never);
  const actions = roleStatements(built.template, roleId).flatMap((s) => [s.Action].flat().map(String));
  expect(actions).toEqual(
    expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue']),
  );
  expect(actions).not.toContain('dynamodb:DeleteItem');
  expect(actions.filter((a) => a.startsWith('states:'))).toEqual([]);
});
